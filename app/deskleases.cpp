// SPDX-License-Identifier: AGPL-3.0-or-later
#include "deskleases.h"
#include "jsontablemodel.h"
#include "staffsession.h"
#include "venueclock.h"

#include <QDateTime>
#include <QJsonArray>
#include <QLocale>
#include <memory>

namespace marquee::app {

namespace {
int countOf(const QJsonObject &lease, const char *field)
{
    return int(lease.value(QLatin1String(field)).toArray().size());
}
} // namespace

DeskLeases::DeskLeases(StaffSession *session, JsonTableModel *shows, JsonTableModel *devices, QObject *parent)
    : QObject(parent)
    , m_session(session)
    , m_shows(shows)
    , m_devices(devices)
{
}

int DeskLeases::unreportedSeats() const
{
    int seats = 0;
    for (const QVariant &row : m_rows)
        seats += row.toMap().value(QStringLiteral("unreported")).toInt();
    return seats;
}

int DeskLeases::leasedSeats() const
{
    int seats = 0;
    for (const QVariant &row : m_rows)
        seats += row.toMap().value(QStringLiteral("leased")).toInt();
    return seats;
}

void DeskLeases::setMessage(const QString &message, bool error)
{
    m_message = message;
    m_messageIsError = error;
    Q_EMIT messageChanged();
}

QVariantMap DeskLeases::rowOf(const QJsonObject &lease, const QVariantMap &show) const
{
    const QString state = lease.value(QStringLiteral("state")).toString();
    const int leased = countOf(lease, "leased_seats");
    const int sold = countOf(lease, "sold_seats");
    const int all = countOf(lease, "seat_ids");
    const bool closed = state == QLatin1String("returned");
    // Unreported: past expiry with seats neither sold nor given back (the till may have sold them offline).
    const bool unreported = state == QLatin1String("unreported") || state == QLatin1String("expired");
    const qint64 deviceId = lease.value(QStringLiteral("device_id")).toInteger();
    QString till = tr("Till %1").arg(deviceId);
    for (int i = 0; m_devices && i < m_devices->count(); ++i)
        if (m_devices->rowAt(i).value(QStringLiteral("device_id")).toLongLong() == deviceId)
            till = m_devices->rowAt(i).value(QStringLiteral("name")).toString();
    QString stateText;
    if (state == QLatin1String("active"))
        stateText = tr("active");
    else if (state == QLatin1String("revoked"))
        stateText = tr("revoked, waiting for the till");
    else if (state == QLatin1String("expired"))
        stateText = tr("expired");
    else if (state == QLatin1String("unreported"))
        stateText = tr("unreported");
    else
        stateText = tr("returned");
    return {{QStringLiteral("lease_id"), lease.value(QStringLiteral("lease_id")).toString()},
            {QStringLiteral("show_id"), show.value(QStringLiteral("show_id"))},
            {QStringLiteral("show"), QStringLiteral("%1 · %2").arg(show.value(QStringLiteral("title")).toString(),
                                                                 wireTimeText(show.value(QStringLiteral("starts_at")).toString(), QStringLiteral("ddd HH:mm")))},
            {QStringLiteral("till"), till},
            {QStringLiteral("state"), state},
            {QStringLiteral("state_text"), stateText},
            {QStringLiteral("seats"), all},
            {QStringLiteral("leased"), closed || unreported ? 0 : leased},
            {QStringLiteral("sold"), sold},
            {QStringLiteral("sales"), lease.value(QStringLiteral("sales")).toInt()},
            {QStringLiteral("returned"), closed ? all - sold : 0},
            {QStringLiteral("unreported"), unreported ? leased : 0},
            {QStringLiteral("leased_seats"), lease.value(QStringLiteral("leased_seats")).toVariant()},
            {QStringLiteral("expires"), wireTimeText(lease.value(QStringLiteral("expires_at")).toString(), QStringLiteral("ddd HH:mm"))},
            {QStringLiteral("can_revoke"), state == QLatin1String("active")},
            {QStringLiteral("can_release"), unreported && leased > 0}};
}

void DeskLeases::refresh()
{
    if (!m_session || !m_session->api() || !m_shows)
        return;
    const int generation = ++m_generation;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QList<QVariantMap> shows;
    for (int i = 0; i < m_shows->count(); ++i) {
        const QVariantMap show = m_shows->rowAt(i);
        const QDateTime starts = QDateTime::fromString(show.value(QStringLiteral("starts_at")).toString(), Qt::ISODateWithMs);
        if (starts > now.addDays(-1) && starts < now.addDays(2))
            shows.append(show);
    }
    std::sort(shows.begin(), shows.end(), [](const QVariantMap &a, const QVariantMap &b) {
        return a.value(QStringLiteral("starts_at")).toString() < b.value(QStringLiteral("starts_at")).toString();
    });
    struct Collect {
        QList<QVariantList> perShow;
        int left = 0;
    };
    auto collect = std::make_shared<Collect>();
    collect->perShow.resize(shows.size());
    collect->left = int(shows.size());
    if (shows.isEmpty()) {
        m_rows.clear();
        Q_EMIT rowsChanged();
        return;
    }
    m_loading = true;
    Q_EMIT rowsChanged();
    for (int i = 0; i < shows.size(); ++i) {
        const QVariantMap show = shows[i];
        m_session->api()->get(QStringLiteral("/api/v1/shows/%1/leases").arg(show.value(QStringLiteral("show_id")).toLongLong()), this,
                              [this, generation, collect, i, show](const ApiReply &reply) {
                                  if (generation != m_generation)
                                      return;
                                  if (reply.ok()) {
                                      for (const QJsonValue &lease : reply.object().value(QStringLiteral("leases")).toArray())
                                          collect->perShow[i].append(rowOf(lease.toObject(), show));
                                  } else if (!m_session->handleUnauthorized(reply)) {
                                      setMessage(tr("The leases of %1 could not be read: %2").arg(show.value(QStringLiteral("title")).toString(),
                                                                                                  reply.message.isEmpty() ? reply.code : reply.message),
                                                 true);
                                  }
                                  if (--collect->left > 0)
                                      return;
                                  m_rows.clear();
                                  for (const QVariantList &rows : std::as_const(collect->perShow))
                                      m_rows.append(rows);
                                  m_loading = false;
                                  Q_EMIT rowsChanged();
                              });
    }
}

void DeskLeases::revoke(const QString &leaseId)
{
    end(leaseId, false);
}

void DeskLeases::releaseUnreported(const QString &leaseId)
{
    end(leaseId, true);
}

void DeskLeases::end(const QString &leaseId, bool release)
{
    if (!m_session || !m_session->api() || leaseId.isEmpty())
        return;
    m_session->api()->del(QStringLiteral("/api/v1/leases/%1").arg(leaseId), this, [this, release](const ApiReply &reply) {
        if (!reply.ok()) {
            if (!m_session->handleUnauthorized(reply))
                setMessage(tr("The lease was not changed: %1").arg(reply.message.isEmpty() ? reply.code : reply.message), true);
            return;
        }
        const QJsonObject lease = reply.object();
        const int freed = int(lease.value(QStringLiteral("freed_seats")).toArray().size());
        if (release)
            setMessage(tr("%n unreported seat(s) are on sale again.", nullptr, freed), false);
        else if (lease.value(QStringLiteral("state")).toString() == QLatin1String("revoked"))
            setMessage(tr("Lease revoked: the till sells no more from it; its seats stay off sale until it reports its offline sales."), false);
        else
            setMessage(tr("The lease is closed; %n seat(s) are on sale again.", nullptr, freed), false);
        refresh();
    });
}

} // namespace marquee::app
