// SPDX-License-Identifier: AGPL-3.0-or-later
#include "leasekeeper.h"
#include "synclog.h"

#include <QJsonArray>
#include <QUuid>

namespace marquee::sync {

namespace {
QDateTime timeOf(const QJsonObject &object, const char *field)
{
    return QDateTime::fromString(object.value(QLatin1String(field)).toString(), Qt::ISODateWithMs);
}
bool given(const StoredLease &lease)
{
    return lease.state == QLatin1String("returned");
}
} // namespace

StoredLease storedLease(const QJsonObject &lease)
{
    StoredLease stored;
    stored.leaseId = lease.value(QStringLiteral("lease_id")).toString();
    stored.showId = lease.value(QStringLiteral("show_id")).toInteger();
    stored.state = lease.value(QStringLiteral("state")).toString();
    stored.returnBy = timeOf(lease, "return_by");
    stored.expiresAt = timeOf(lease, "expires_at");
    stored.lease = lease;
    return stored;
}

LeaseKeeper::LeaseKeeper(LocalStore &store, ApiClient &api, QObject *parent)
    : LeaseKeeper(store, api, Options{}, parent)
{
}

LeaseKeeper::LeaseKeeper(LocalStore &store, ApiClient &api, const Options &options, QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_api(api)
    , m_options(options)
{
    m_timer.setInterval(m_options.refreshIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &LeaseKeeper::refresh);
}

void LeaseKeeper::setShows(const QList<QJsonObject> &shows)
{
    m_shows = shows;
    if (m_online)
        refresh();
}

void LeaseKeeper::setOnline(bool online)
{
    if (m_online == online)
        return;
    m_online = online;
    if (online) {
        m_timer.start();
        refresh();
    } else {
        m_timer.stop();
    }
}

void LeaseKeeper::refresh()
{
    if (!m_online)
        return;
    if (m_running) {
        m_again = true;
        return;
    }
    const QDateTime now = QDateTime::currentDateTimeUtc();
    m_queue.clear();
    QList<qint64> queued;
    for (const QJsonObject &show : std::as_const(m_shows)) {
        const qint64 showId = show.value(QStringLiteral("show_id")).toInteger();
        const QDateTime startsAt = timeOf(show, "starts_at");
        if (showId > 0 && startsAt.isValid() && now.secsTo(startsAt) <= m_options.windowSeconds && !queued.contains(showId)) {
            m_queue.append({showId, startsAt});
            queued.append(showId);
        }
    }
    // Leases of shows no longer listed (started, or a restart without the catalogue yet) are still given back.
    for (const StoredLease &lease : m_store.leases())
        if (!given(lease) && !queued.contains(lease.showId)) {
            m_queue.append({lease.showId, QDateTime()});
            queued.append(lease.showId);
        }
    m_running = true;
    m_passComplete = true;
    nextShow();
}

void LeaseKeeper::finishPass(bool complete)
{
    m_running = false;
    Q_EMIT refreshed(complete);
    if (m_again) {
        m_again = false;
        QMetaObject::invokeMethod(this, &LeaseKeeper::refresh, Qt::QueuedConnection);
    }
}

void LeaseKeeper::nextShow()
{
    if (!m_online) {
        finishPass(false);
        return;
    }
    if (m_queue.isEmpty()) {
        finishPass(m_passComplete);
        return;
    }
    const auto [showId, startsAt] = m_queue.takeFirst();
    readShow(showId, startsAt);
}

void LeaseKeeper::keep(const QJsonObject &lease)
{
    StoredLease stored = storedLease(lease);
    // The delegation comes with the grant; a later read of the lease may leave it out, so it is kept.
    if (!lease.contains(QStringLiteral("delegation")))
        if (const std::optional<StoredLease> before = m_store.lease(stored.leaseId); before && before->lease.contains(QStringLiteral("delegation")))
            stored.lease.insert(QStringLiteral("delegation"), before->lease.value(QStringLiteral("delegation")));
    if (!stored.leaseId.isEmpty() && m_store.saveLease(stored))
        Q_EMIT leasesChanged();
}

void LeaseKeeper::readShow(qint64 showId, const QDateTime &startsAt)
{
    m_api.request(QStringLiteral("GET"), QStringLiteral("/api/v1/shows/%1/leases").arg(showId), {}, {}, [this, showId, startsAt](const ApiResult &result) {
        if (!result.ok()) {
            if (result.kind == ApiResult::Kind::NetworkError)
                qCInfo(lcSync) << "leases of show" << showId << "not read:" << result.describe();
            else
                qCWarning(lcSync) << "leases of show" << showId << "not read:" << result.describe();
            m_passComplete = false;
            nextShow();
            return;
        }
        const QJsonObject answer = result.json();
        QStringList listed;
        int leasedNow = 0;
        for (const QJsonValue &value : answer.value(QStringLiteral("leases")).toArray()) {
            const QJsonObject lease = value.toObject();
            keep(lease);
            listed.append(lease.value(QStringLiteral("lease_id")).toString());
            leasedNow += int(lease.value(QStringLiteral("leased_seats")).toArray().size());
        }
        // A lease the server does not list for this till is not (or no longer) its own: forget it once nothing of
        // it waits to be booked.
        for (const StoredLease &lease : m_store.leases(showId))
            if (!listed.contains(lease.leaseId) && m_store.unsettledSales(lease.leaseId) == 0 && m_store.forgetLease(lease.leaseId))
                Q_EMIT leasesChanged();
        const QDateTime now = QDateTime::currentDateTimeUtc();
        QList<StoredLease> due;
        for (const StoredLease &lease : m_store.leases(showId)) {
            if (given(lease))
                continue;
            const bool ended = lease.state != QLatin1String("active") || (lease.returnBy.isValid() && now >= lease.returnBy);
            // Only with every sale of it booked: a sale still to upload, or one the server refused, keeps its seats
            // off sale (a person settles it; unsure, nothing is resold under a printed ticket).
            if (ended && m_store.unsettledSales(lease.leaseId) == 0)
                due.append(lease);
        }
        // The server's settings decide: how many seats this till may keep leased, and from when they go back.
        const QJsonObject settings = answer.value(QStringLiteral("settings")).toObject();
        const int limit = settings.value(QStringLiteral("seats_per_device")).toInt(-1);
        const int returnBefore = settings.value(QStringLiteral("return_before_seconds")).toInt(0);
        returnDue(showId, due, [this, showId, startsAt, limit, returnBefore, leasedNow] {
            const QDateTime now = QDateTime::currentDateTimeUtc();
            const bool beforeReturn = startsAt.isValid() && now.secsTo(startsAt) <= m_options.windowSeconds && now < startsAt.addSecs(-returnBefore);
            if (!beforeReturn || limit < 0) {
                nextShow();
                return;
            }
            topUp(showId, limit - leasedNow, [this] { nextShow(); });
        });
    });
}

void LeaseKeeper::returnDue(qint64 showId, QList<StoredLease> due, std::function<void()> done)
{
    if (due.isEmpty() || !m_online) {
        done();
        return;
    }
    const StoredLease lease = due.takeFirst();
    m_api.request(QStringLiteral("DELETE"), QStringLiteral("/api/v1/leases/%1").arg(lease.leaseId), {}, QStringLiteral("return-") + lease.leaseId,
                  [this, showId, due, done, lease](const ApiResult &result) {
                      if (result.ok()) {
                          QJsonObject answer = result.json();
                          const QJsonArray freed = answer.take(QStringLiteral("freed_seats")).toArray();
                          keep(answer);
                          qCInfo(lcSync) << "lease" << lease.leaseId << "given back," << freed.size() << "seats back on sale";
                      } else {
                          m_passComplete = false;
                          qCInfo(lcSync) << "lease" << lease.leaseId << "not given back yet:" << result.describe();
                      }
                      returnDue(showId, due, done);
                  });
}

void LeaseKeeper::topUp(qint64 showId, int want, std::function<void()> done)
{
    // A request that got no answer goes first, unchanged: the server answers it from its key, once.
    if (const std::optional<LeaseRequestRecord> pending = m_store.pendingLeaseRequest(showId)) {
        sendRequest(*pending, done);
        return;
    }
    if (want <= 0) {
        done();
        return;
    }
    LeaseRequestRecord request;
    request.idempotencyKey = QStringLiteral("lease-%1-%2").arg(showId).arg(QUuid::createUuid().toString(QUuid::Id128));
    request.showId = showId;
    request.body = QJsonObject{{QStringLiteral("best"), want}};
    if (m_decorate)
        m_decorate(request.body);
    if (!m_store.recordLeaseRequest(request)) {
        qCWarning(lcSync) << "lease request not journaled:" << m_store.errorString();
        done();
        return;
    }
    sendRequest(request, done);
}

void LeaseKeeper::sendRequest(const LeaseRequestRecord &request, std::function<void()> done)
{
    m_api.request(QStringLiteral("POST"), QStringLiteral("/api/v1/shows/%1/leases").arg(request.showId), request.body, request.idempotencyKey,
                  [this, request, done](const ApiResult &result) {
                      if (result.retryable()) {
                          // No answer: the same key and body go out again on the next pass.
                          m_passComplete = false;
                          done();
                          return;
                      }
                      m_store.answerLeaseRequest(request.idempotencyKey, result.status, result.body);
                      if (result.ok()) {
                          const QJsonObject lease = result.json();
                          keep(lease);
                          if (m_granted)
                              m_granted(lease);
                          qCInfo(lcSync) << "leased" << lease.value(QStringLiteral("seat_ids")).toArray().size() << "seats of show" << request.showId;
                          done();
                          return;
                      }
                      const int available = result.json().value(QStringLiteral("available")).toInt();
                      if (result.error.code == QLatin1String("not_enough_seats") && available > 0
                          && available < request.body.value(QStringLiteral("best")).toInt()) {
                          // Fewer free seats than the allowance: the ones there are.
                          topUp(request.showId, available, done);
                          return;
                      }
                      qCInfo(lcSync) << "lease for show" << request.showId << "refused:" << result.describe();
                      done();
                  });
}

QHash<QString, QString> LeaseKeeper::sellableSeats(qint64 showId, const QDateTime &now)
{
    QHash<QString, QString> seats;
    for (const StoredLease &lease : m_store.leases(showId)) {
        // Active only: a revoked lease sells nothing more (the server still takes what was sold before).
        if (lease.state != QLatin1String("active") || !lease.expiresAt.isValid() || now >= lease.expiresAt)
            continue;
        const QStringList sold = m_store.seatsSoldOffline(lease.leaseId);
        for (const QString &seat : lease.leasedSeats())
            if (!sold.contains(seat))
                seats.insert(seat, lease.leaseId);
    }
    return seats;
}

QString LeaseKeeper::leaseFor(qint64 showId, const QStringList &seatIds, const QDateTime &now)
{
    const QHash<QString, QString> sellable = sellableSeats(showId, now);
    QString leaseId;
    for (const QString &seat : seatIds) {
        const QString of = sellable.value(seat);
        if (of.isEmpty() || (!leaseId.isEmpty() && of != leaseId))
            return {};
        leaseId = of;
    }
    return leaseId;
}

} // namespace marquee::sync
