// SPDX-License-Identifier: AGPL-3.0-or-later
// The till's leases, lease requests and journal of offline sales (schema 4): the SQL of LeaseKeeper and
// OfflineSales, kept apart from the kiosk's journals in localstore.cpp.
#include "localstore.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlError>
#include <QSqlQuery>

namespace marquee::sync {

namespace {
qint64 msOf(const QDateTime &time)
{
    return time.isValid() ? time.toMSecsSinceEpoch() : 0;
}
QDateTime timeOf(const QVariant &ms)
{
    return ms.isNull() || ms.toLongLong() == 0 ? QDateTime() : QDateTime::fromMSecsSinceEpoch(ms.toLongLong(), Qt::UTC);
}
QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}
QStringList stringsOf(const QJsonValue &value)
{
    QStringList list;
    for (const QJsonValue &item : value.toArray())
        list.append(item.toString());
    return list;
}

const QString kLeaseColumns = QStringLiteral("lease_id, show_id, state, return_by, expires_at, lease, updated_at");
StoredLease readLease(const QSqlQuery &q)
{
    StoredLease lease;
    lease.leaseId = q.value(0).toString();
    lease.showId = q.value(1).toLongLong();
    lease.state = q.value(2).toString();
    lease.returnBy = timeOf(q.value(3));
    lease.expiresAt = timeOf(q.value(4));
    lease.lease = QJsonDocument::fromJson(q.value(5).toByteArray()).object();
    lease.updatedAt = timeOf(q.value(6));
    return lease;
}

const QString kSaleColumns = QStringLiteral(
    "device_seq, lease_id, show_id, seat_ids, amount_minor, currency, tendered_minor, sold_at, staff, body, print_data, print_state, "
    "print_error, upload_state, attempts, last_error, result_status, result_body, booking_id, booking_ref, answered_at");
OfflineSaleRecord readSale(const QSqlQuery &q)
{
    OfflineSaleRecord sale;
    sale.deviceSeq = q.value(0).toLongLong();
    sale.leaseId = q.value(1).toString();
    sale.showId = q.value(2).toLongLong();
    sale.seatIds = stringsOf(QJsonDocument::fromJson(q.value(3).toByteArray()).array());
    sale.amountMinor = q.value(4).toLongLong();
    sale.currency = q.value(5).toString();
    sale.tenderedMinor = q.value(6).toLongLong();
    sale.soldAt = timeOf(q.value(7));
    sale.staff = q.value(8).toString();
    sale.body = QJsonDocument::fromJson(q.value(9).toByteArray()).object();
    sale.printData = QJsonDocument::fromJson(q.value(10).toByteArray()).object();
    sale.printState = q.value(11).toString();
    sale.printError = q.value(12).toString();
    sale.uploadState = q.value(13).toString();
    sale.attempts = q.value(14).toInt();
    sale.lastError = q.value(15).toString();
    sale.resultStatus = q.value(16).toInt();
    sale.resultBody = q.value(17).toByteArray();
    sale.bookingId = q.value(18).toString();
    sale.bookingRef = q.value(19).toString();
    sale.answeredAt = timeOf(q.value(20));
    return sale;
}
} // namespace

QStringList StoredLease::leasedSeats() const
{
    return stringsOf(lease.value(QStringLiteral("leased_seats")));
}

bool LocalStore::saveLease(const StoredLease &lease)
{
    return transaction([&] {
        return exec(QStringLiteral("INSERT INTO leases (%1) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (lease_id) DO UPDATE SET "
                                   "show_id = excluded.show_id, state = excluded.state, return_by = excluded.return_by, "
                                   "expires_at = excluded.expires_at, lease = excluded.lease, updated_at = excluded.updated_at")
                        .arg(kLeaseColumns),
                    {lease.leaseId, lease.showId, lease.state, msOf(lease.returnBy), msOf(lease.expiresAt), compact(lease.lease),
                     QDateTime::currentMSecsSinceEpoch()});
    });
}

std::optional<StoredLease> LocalStore::lease(const QString &leaseId)
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT %1 FROM leases WHERE lease_id = ?").arg(kLeaseColumns));
    q.addBindValue(leaseId);
    if (!q.exec() || !q.next())
        return std::nullopt;
    return readLease(q);
}

QList<StoredLease> LocalStore::leases(qint64 showId)
{
    QList<StoredLease> result;
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT %1 FROM leases WHERE ? = 0 OR show_id = ? ORDER BY rowid").arg(kLeaseColumns));
    q.addBindValue(showId);
    q.addBindValue(showId);
    if (q.exec()) {
        while (q.next())
            result.append(readLease(q));
    }
    return result;
}

bool LocalStore::forgetLease(const QString &leaseId)
{
    return transaction([&] { return exec(QStringLiteral("DELETE FROM leases WHERE lease_id = ?"), {leaseId}); });
}

bool LocalStore::recordLeaseRequest(const LeaseRequestRecord &request)
{
    bool inserted = false;
    const bool ok = transaction([&] {
        if (!exec(QStringLiteral("INSERT OR IGNORE INTO lease_requests (idempotency_key, show_id, body, created_at) VALUES (?, ?, ?, ?)"),
                  {request.idempotencyKey, request.showId, compact(request.body), QDateTime::currentMSecsSinceEpoch()}))
            return false;
        QSqlQuery q(db());
        inserted = q.exec(QStringLiteral("SELECT changes()")) && q.next() && q.value(0).toInt() == 1;
        return true;
    });
    return ok && inserted;
}

std::optional<LeaseRequestRecord> LocalStore::pendingLeaseRequest(qint64 showId)
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT idempotency_key, show_id, body, state, result_status, result_body, created_at FROM lease_requests "
                             "WHERE show_id = ? AND state = 'pending' ORDER BY created_at, rowid LIMIT 1"));
    q.addBindValue(showId);
    if (!q.exec() || !q.next())
        return std::nullopt;
    LeaseRequestRecord request;
    request.idempotencyKey = q.value(0).toString();
    request.showId = q.value(1).toLongLong();
    request.body = QJsonDocument::fromJson(q.value(2).toByteArray()).object();
    request.state = q.value(3).toString();
    request.resultStatus = q.value(4).toInt();
    request.resultBody = q.value(5).toByteArray();
    request.createdAt = timeOf(q.value(6));
    return request;
}

bool LocalStore::answerLeaseRequest(const QString &idempotencyKey, int status, const QByteArray &body)
{
    return transaction([&] {
        return exec(QStringLiteral("UPDATE lease_requests SET state = 'answered', result_status = ?, result_body = ? WHERE idempotency_key = ?"),
                    {status, body, idempotencyKey});
    });
}

qint64 LocalStore::nextDeviceSeq()
{
    QSqlQuery q(db());
    if (!q.exec(QStringLiteral("SELECT coalesce(max(device_seq), 0) + 1 FROM offline_sales")) || !q.next())
        return 0;
    return q.value(0).toLongLong();
}

bool LocalStore::journalOfflineSale(const OfflineSaleRecord &sale)
{
    if (sale.deviceSeq <= 0 || sale.leaseId.isEmpty() || sale.seatIds.isEmpty())
        return fail(QStringLiteral("journal offline sale"), QStringLiteral("a sale needs its number, its lease and its seats"));
    return transaction([&] {
        // A seat is sold once under its lease, whatever became of the upload of the sale that sold it.
        const QStringList sold = seatsSoldOffline(sale.leaseId);
        for (const QString &seat : sale.seatIds)
            if (sold.contains(seat))
                return fail(QStringLiteral("journal offline sale"), QStringLiteral("seat %1 was sold offline before").arg(seat));
        return exec(QStringLiteral("INSERT INTO offline_sales (device_seq, lease_id, show_id, seat_ids, amount_minor, currency, tendered_minor, "
                                   "sold_at, staff, body, print_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
                    {sale.deviceSeq, sale.leaseId, sale.showId,
                     QJsonDocument(QJsonArray::fromStringList(sale.seatIds)).toJson(QJsonDocument::Compact), sale.amountMinor, sale.currency,
                     sale.tenderedMinor, msOf(sale.soldAt), sale.staff, compact(sale.body), compact(sale.printData)});
    });
}

std::optional<OfflineSaleRecord> LocalStore::offlineSale(qint64 deviceSeq)
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT %1 FROM offline_sales WHERE device_seq = ?").arg(kSaleColumns));
    q.addBindValue(deviceSeq);
    if (!q.exec() || !q.next())
        return std::nullopt;
    return readSale(q);
}

QList<OfflineSaleRecord> LocalStore::offlineSales(const QString &uploadState)
{
    QList<OfflineSaleRecord> result;
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT %1 FROM offline_sales WHERE ? = '' OR upload_state = ? ORDER BY device_seq").arg(kSaleColumns));
    q.addBindValue(uploadState.isNull() ? QStringLiteral("") : uploadState);
    q.addBindValue(uploadState.isNull() ? QStringLiteral("") : uploadState);
    if (q.exec()) {
        while (q.next())
            result.append(readSale(q));
    }
    return result;
}

QStringList LocalStore::seatsSoldOffline(const QString &leaseId)
{
    QStringList seats;
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT seat_ids FROM offline_sales WHERE lease_id = ? ORDER BY device_seq"));
    q.addBindValue(leaseId);
    if (q.exec()) {
        while (q.next())
            seats.append(stringsOf(QJsonDocument::fromJson(q.value(0).toByteArray()).array()));
    }
    return seats;
}

int LocalStore::unsettledSales(const QString &leaseId)
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT count(*) FROM offline_sales WHERE lease_id = ? AND upload_state <> 'booked'"));
    q.addBindValue(leaseId);
    if (!q.exec() || !q.next())
        return -1;
    return q.value(0).toInt();
}

bool LocalStore::setOfflineSalePrinted(qint64 deviceSeq, const QString &printState, const QString &error)
{
    return transaction([&] {
        return exec(QStringLiteral("UPDATE offline_sales SET print_state = ?, print_error = ? WHERE device_seq = ?"), {printState, error, deviceSeq});
    });
}

bool LocalStore::noteOfflineSaleAttempt(qint64 deviceSeq, const QString &error)
{
    return transaction([&] {
        return exec(QStringLiteral("UPDATE offline_sales SET attempts = attempts + 1, last_error = ? WHERE device_seq = ? AND upload_state = 'pending'"),
                    {error, deviceSeq});
    });
}

bool LocalStore::answerOfflineSale(qint64 deviceSeq, const QString &uploadState, int status, const QByteArray &body, const QString &bookingId,
                                   const QString &bookingRef, const QString &error)
{
    return transaction([&] {
        return exec(QStringLiteral("UPDATE offline_sales SET upload_state = ?, attempts = attempts + 1, result_status = ?, result_body = ?, "
                                   "booking_id = ?, booking_ref = ?, last_error = ?, answered_at = ? WHERE device_seq = ?"),
                    {uploadState, status, body, bookingId, bookingRef, error, QDateTime::currentMSecsSinceEpoch(), deviceSeq});
    });
}

} // namespace marquee::sync
