// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/shiftrepository.h"

#include "core/isotime.h"
#include "store/staffrepository.h"

#include <QJsonDocument>
#include <QSqlError>
#include <QSqlQuery>

namespace marquee::store {

namespace {
QString operationName(DrawerOperation operation)
{
    switch (operation) {
    case DrawerOperation::CashIn:
        return QStringLiteral("cash_in");
    case DrawerOperation::CashOut:
        return QStringLiteral("cash_out");
    case DrawerOperation::NoSale:
        return QStringLiteral("no_sale");
    }
    return {};
}

// The Z-report of every shift matching the filter, from the orders, refunds and drawer operations of each. A
// closed shift's sums are not computed (its stored Z-report is what is shown) unless :live asks for them: the
// condition on s.z_report is a one-time filter of each lateral subquery, so a year of closed shifts reads no
// orders at all.
const char *kZReport =
    "SELECT s.shift_id, s.staff_id, st.name, s.device_id, coalesce(d.name, ''), s.currency, s.opening_float_minor, "
    "       s.opened_at, s.closed_at, s.counted_cash_minor, coalesce(s.z_report::text, ''), "
    "       sa.n, sa.tickets, sa.cash, sa.card, sa.change_given, sa.split, "
    "       vo.n, vo.amount, rf.n, rf.amount, rf.cash, dr.cash_in, dr.cash_out, dr.no_sales "
    "  FROM shifts s JOIN staff st ON st.staff_id = s.staff_id LEFT JOIN devices d ON d.device_id = s.device_id "
    " CROSS JOIN LATERAL (SELECT count(*) AS n, coalesce(sum(b.tickets), 0) AS tickets, coalesce(sum(o.cash_minor), 0) AS cash, "
    "                            coalesce(sum(o.amount_minor - o.cash_minor), 0) AS card, coalesce(sum(o.change_minor), 0) AS change_given, "
    "                            count(*) FILTER (WHERE o.cash_minor > 0 AND o.cash_minor < o.amount_minor) AS split "
    "                       FROM orders o JOIN bookings b ON b.order_id = o.order_id WHERE o.shift_id = s.shift_id AND (s.z_report IS NULL OR CAST(:live AS boolean))) sa "
    " CROSS JOIN LATERAL (SELECT count(*) AS n, coalesce(sum(o.amount_minor), 0) AS amount FROM orders o "
    "                      WHERE o.shift_id = s.shift_id AND (s.z_report IS NULL OR CAST(:live AS boolean)) AND o.state IN ('FAILED', 'EXPIRED', 'CANCELLED') "
    "                        AND NOT EXISTS (SELECT 1 FROM bookings b WHERE b.order_id = o.order_id)) vo "
    " CROSS JOIN LATERAL (SELECT count(*) AS n, coalesce(sum(r.amount_minor), 0) AS amount, coalesce(sum(r.cash_minor), 0) AS cash "
    "                       FROM refunds r WHERE r.shift_id = s.shift_id AND (s.z_report IS NULL OR CAST(:live AS boolean))) rf "
    " CROSS JOIN LATERAL (SELECT coalesce(sum(amount_minor) FILTER (WHERE kind = 'cash_in'), 0) AS cash_in, "
    "                            coalesce(sum(amount_minor) FILTER (WHERE kind = 'cash_out'), 0) AS cash_out, "
    "                            count(*) FILTER (WHERE kind = 'no_sale') AS no_sales "
    "                       FROM drawer_operations WHERE shift_id = s.shift_id AND (s.z_report IS NULL OR CAST(:live AS boolean))) dr "
    " WHERE (CAST(:shift AS bigint) = 0 OR s.shift_id = :shift) "
    "   AND s.opened_at >= CAST(:from AS timestamptz) AND s.opened_at < CAST(:to AS timestamptz) "
    "   AND (CAST(:device AS bigint) = 0 OR s.device_id = :device) AND (CAST(:cashier AS text) = '' OR st.name = :cashier) "
    " ORDER BY s.opened_at DESC, s.shift_id DESC LIMIT :limit";

QJsonObject readZReport(const QSqlQuery &q)
{
    const qint64 openingFloat = q.value(6).toLongLong();
    const qint64 cashSales = q.value(13).toLongLong();
    const qint64 cardSales = q.value(14).toLongLong();
    const qint64 refunded = q.value(20).toLongLong();
    const qint64 refundedCash = q.value(21).toLongLong();
    const qint64 cashIn = q.value(22).toLongLong();
    const qint64 cashOut = q.value(23).toLongLong();
    const qint64 expected = openingFloat + cashSales + cashIn - cashOut - refundedCash;
    const bool closed = !q.value(8).isNull();
    QJsonObject z{{QStringLiteral("shift_id"), q.value(0).toLongLong()},
                  {QStringLiteral("cashier"), QJsonObject{{QStringLiteral("staff_id"), q.value(1).toLongLong()},
                                                          {QStringLiteral("name"), q.value(2).toString()}}},
                  {QStringLiteral("device_id"), q.value(3).isNull() ? QJsonValue() : QJsonValue(q.value(3).toLongLong())},
                  {QStringLiteral("device_name"), q.value(4).toString()},
                  {QStringLiteral("currency"), q.value(5).toString()},
                  {QStringLiteral("state"), closed ? QStringLiteral("closed") : QStringLiteral("open")},
                  {QStringLiteral("opened_at"), toIsoUtc(q.value(7).toDateTime())},
                  {QStringLiteral("closed_at"), closed ? QJsonValue(toIsoUtc(q.value(8).toDateTime())) : QJsonValue()},
                  {QStringLiteral("opening_float_minor"), openingFloat},
                  {QStringLiteral("sales"), QJsonObject{{QStringLiteral("count"), q.value(11).toLongLong()},
                                                        {QStringLiteral("tickets"), q.value(12).toLongLong()},
                                                        {QStringLiteral("total_minor"), cashSales + cardSales},
                                                        {QStringLiteral("split_count"), q.value(16).toLongLong()},
                                                        {QStringLiteral("change_given_minor"), q.value(15).toLongLong()},
                                                        {QStringLiteral("by_method"), QJsonObject{{QStringLiteral("cash_minor"), cashSales},
                                                                                                  {QStringLiteral("card_minor"), cardSales}}}}},
                  {QStringLiteral("refunds"), QJsonObject{{QStringLiteral("count"), q.value(19).toLongLong()},
                                                          {QStringLiteral("total_minor"), refunded},
                                                          {QStringLiteral("cash_minor"), refundedCash},
                                                          {QStringLiteral("card_minor"), refunded - refundedCash}}},
                  {QStringLiteral("voids"), QJsonObject{{QStringLiteral("count"), q.value(17).toLongLong()},
                                                        {QStringLiteral("total_minor"), q.value(18).toLongLong()}}},
                  {QStringLiteral("drawer"), QJsonObject{{QStringLiteral("cash_in_minor"), cashIn},
                                                         {QStringLiteral("cash_out_minor"), cashOut},
                                                         {QStringLiteral("no_sale_count"), q.value(24).toLongLong()}}},
                  {QStringLiteral("expected_cash_minor"), expected},
                  {QStringLiteral("counted_cash_minor"), QJsonValue()},
                  {QStringLiteral("over_short_minor"), QJsonValue()}};
    if (closed) {
        const qint64 counted = q.value(9).toLongLong();
        z.insert(QStringLiteral("counted_cash_minor"), counted);
        z.insert(QStringLiteral("over_short_minor"), counted - expected);
    }
    return z;
}
} // namespace

ShiftRepository::ShiftRepository(const Database &database)
    : m_database(database)
{
}

std::optional<QJsonArray> ShiftRepository::zReports(QSqlDatabase &db, const ShiftQuery &filter, bool live)
{
    QSqlQuery query(db);
    if (!prepareQuery(query, QLatin1String(kZReport)))
        return std::nullopt;
    query.bindValue(QStringLiteral(":shift"), filter.shiftId);
    query.bindValue(QStringLiteral(":from"), (filter.from.isValid() ? filter.from : QDateTime::fromSecsSinceEpoch(0)).toUTC());
    query.bindValue(QStringLiteral(":to"), (filter.to.isValid() ? filter.to : QDateTime::currentDateTimeUtc().addYears(100)).toUTC());
    query.bindValue(QStringLiteral(":device"), filter.deviceId);
    query.bindValue(QStringLiteral(":cashier"), nonNull(filter.cashier));
    query.bindValue(QStringLiteral(":limit"), filter.limit);
    query.bindValue(QStringLiteral(":live"), live);
    if (!execQuery(query, "z report"))
        return std::nullopt;
    QJsonArray rows;
    while (query.next()) {
        // A closed shift shows what was signed off (a card sale confirmed after the close does not move it).
        const QString stored = query.value(10).toString();
        rows.append(stored.isEmpty() || live ? readZReport(query) : QJsonDocument::fromJson(stored.toUtf8()).object());
    }
    return rows;
}

std::optional<qint64> ShiftRepository::openShiftId(QSqlDatabase &db, qint64 staffId, bool forUpdate)
{
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral("SELECT shift_id FROM shifts WHERE staff_id = ? AND closed_at IS NULL") + (forUpdate ? QStringLiteral(" FOR UPDATE") : QString()));
    query.addBindValue(staffId);
    if (!execQuery(query, "find open shift"))
        return std::nullopt;
    return query.next() ? query.value(0).toLongLong() : 0;
}

ShiftOutcome ShiftRepository::open(const Principal &cashier, const QString &currency, qint64 openingFloatMinor, qint64 deviceId)
{
    ShiftOutcome out;
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return out;
    if (deviceId) {
        QSqlQuery device(db);
        prepareQuery(device, QStringLiteral("SELECT 1 FROM devices WHERE device_id = ? AND role = 'till' AND revoked_at IS NULL"));
        device.addBindValue(deviceId);
        if (!execQuery(device, "find till"))
            return out;
        if (!device.next()) {
            out.kind = ShiftOutcome::Kind::UnknownDevice;
            return out;
        }
    }
    // ON CONFLICT on the one-open-shift index: a concurrent second open gets the first one's shift back. Without a
    // device named, the shift runs on the till the session was signed in on (its device token, migration 022), so
    // its Z-report and sales name the till.
    QSqlQuery insert(db);
    prepareQuery(insert, QStringLiteral(
        "INSERT INTO shifts (staff_id, device_id, currency, opening_float_minor, opened_by) "
        "VALUES (?, coalesce(?, (SELECT d.device_id FROM sessions se JOIN devices d ON d.device_id = se.device_id "
        "                        WHERE se.session_id = ? AND d.role = 'till' AND d.revoked_at IS NULL)), ?, ?, ?) "
        "ON CONFLICT (staff_id) WHERE closed_at IS NULL DO NOTHING RETURNING shift_id"));
    insert.addBindValue(cashier.staffId);
    insert.addBindValue(deviceId ? QVariant(deviceId) : QVariant(QMetaType::fromType<qlonglong>()));
    insert.addBindValue(cashier.kind == Principal::Kind::Session ? cashier.id : qint64(0));
    insert.addBindValue(currency);
    insert.addBindValue(openingFloatMinor);
    insert.addBindValue(cashier.owner());
    if (!execQuery(insert, "open shift"))
        return out;
    const bool opened = insert.next();
    const auto shiftId = opened ? std::optional(insert.value(0).toLongLong()) : openShiftId(db, cashier.staffId, false);
    if (!shiftId || !*shiftId)
        return out;
    if (opened
        && !StaffRepository::appendAudit(db, cashier, {QStringLiteral("shift.open"), QStringLiteral("shift:%1").arg(*shiftId), QString(),
                                                       QJsonObject{{QStringLiteral("opening_float_minor"), openingFloatMinor},
                                                                   {QStringLiteral("currency"), currency}}}))
        return out;
    ShiftQuery filter;
    filter.shiftId = *shiftId;
    const auto z = zReports(db, filter);
    if (!z || z->isEmpty() || !tx.commit())
        return out;
    out.kind = opened ? ShiftOutcome::Kind::Done : ShiftOutcome::Kind::AlreadyOpen;
    out.body = z->first().toObject();
    return out;
}

ShiftOutcome ShiftRepository::current(const Principal &cashier)
{
    ShiftOutcome out;
    QSqlDatabase db = m_database.connection();
    const auto shiftId = openShiftId(db, cashier.staffId, false);
    if (!shiftId)
        return out;
    if (!*shiftId) {
        out.kind = ShiftOutcome::Kind::NoOpenShift;
        return out;
    }
    ShiftQuery filter;
    filter.shiftId = *shiftId;
    const auto z = zReports(db, filter);
    if (!z || z->isEmpty())
        return out;
    out.kind = ShiftOutcome::Kind::Done;
    out.body = z->first().toObject();
    return out;
}

ShiftOutcome ShiftRepository::inOpenShift(const Principal &cashier, const std::function<bool(QSqlDatabase &, qint64, ShiftOutcome &)> &work)
{
    ShiftOutcome out;
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return out;
    // The row lock makes a concurrent drawer operation or close of the same shift wait for this one.
    const auto shiftId = openShiftId(db, cashier.staffId, true);
    if (!shiftId)
        return out;
    if (!*shiftId) {
        out.kind = ShiftOutcome::Kind::NoOpenShift;
        return out;
    }
    if (!work(db, *shiftId, out) || !tx.commit()) {
        out.kind = ShiftOutcome::Kind::Error;
        return out;
    }
    out.kind = ShiftOutcome::Kind::Done;
    return out;
}

ShiftOutcome ShiftRepository::drawer(const Principal &cashier, DrawerOperation operation, qint64 amountMinor, const QString &reason)
{
    return inOpenShift(cashier, [&](QSqlDatabase &db, qint64 shiftId, ShiftOutcome &out) {
        const QString kind = operationName(operation);
        QSqlQuery insert(db);
        prepareQuery(insert, QStringLiteral("INSERT INTO drawer_operations (shift_id, kind, amount_minor, reason, actor) VALUES (?, ?, ?, ?, ?) "
                                            "RETURNING operation_id, at"));
        insert.addBindValue(shiftId);
        insert.addBindValue(kind);
        insert.addBindValue(amountMinor);
        insert.addBindValue(nonNull(reason));
        insert.addBindValue(cashier.owner());
        if (!execQuery(insert, "drawer operation") || !insert.next())
            return false;
        const qint64 operationId = insert.value(0).toLongLong();
        const QString at = toIsoUtc(insert.value(1).toDateTime());
        if (!StaffRepository::appendAudit(db, cashier, {QStringLiteral("drawer.") + kind, QStringLiteral("shift:%1").arg(shiftId), reason,
                                                        QJsonObject{{QStringLiteral("operation_id"), operationId},
                                                                    {QStringLiteral("amount_minor"), amountMinor}}}))
            return false;
        ShiftQuery filter;
        filter.shiftId = shiftId;
        const auto z = zReports(db, filter);
        if (!z || z->isEmpty())
            return false;
        out.body = QJsonObject{{QStringLiteral("operation_id"), operationId},
                               {QStringLiteral("kind"), kind},
                               {QStringLiteral("amount_minor"), amountMinor},
                               {QStringLiteral("reason"), reason},
                               {QStringLiteral("at"), at},
                               {QStringLiteral("open_drawer"), true},
                               {QStringLiteral("shift"), z->first().toObject()}};
        return true;
    });
}

ShiftOutcome ShiftRepository::close(const Principal &cashier, qint64 countedCashMinor, const QString &note)
{
    return inOpenShift(cashier, [&](QSqlDatabase &db, qint64 shiftId, ShiftOutcome &out) {
        QSqlQuery mark(db);
        prepareQuery(mark, QStringLiteral("UPDATE shifts SET closed_at = now(), closed_by = ?, counted_cash_minor = ?, z_report = '{}' "
                                          " WHERE shift_id = ? AND closed_at IS NULL"));
        mark.addBindValue(cashier.owner());
        mark.addBindValue(countedCashMinor);
        mark.addBindValue(shiftId);
        if (!execQuery(mark, "close shift") || mark.numRowsAffected() != 1)
            return false;
        // Computed after the close is marked (same transaction), so the report reads as closed with the count; the
        // placeholder '{}' satisfies the table's CHECK until the real report is stored next.
        ShiftQuery filter;
        filter.shiftId = shiftId;
        const auto z = zReports(db, filter, true);
        if (!z || z->isEmpty())
            return false;
        QJsonObject report = z->first().toObject();
        report.insert(QStringLiteral("note"), note);
        QSqlQuery store(db);
        prepareQuery(store, QStringLiteral("UPDATE shifts SET z_report = ?::jsonb WHERE shift_id = ?"));
        store.addBindValue(QString::fromUtf8(QJsonDocument(report).toJson(QJsonDocument::Compact)));
        store.addBindValue(shiftId);
        if (!execQuery(store, "store z report"))
            return false;
        if (!StaffRepository::appendAudit(db, cashier, {QStringLiteral("shift.close"), QStringLiteral("shift:%1").arg(shiftId), note,
                                                        QJsonObject{{QStringLiteral("counted_cash_minor"), countedCashMinor},
                                                                    {QStringLiteral("expected_cash_minor"), report.value(QStringLiteral("expected_cash_minor"))},
                                                                    {QStringLiteral("over_short_minor"), report.value(QStringLiteral("over_short_minor"))}}}))
            return false;
        out.body = report;
        return true;
    });
}

std::optional<QJsonArray> ShiftRepository::list(const ShiftQuery &filter)
{
    QSqlDatabase db = m_database.connection();
    return zReports(db, filter);
}

} // namespace marquee::store
