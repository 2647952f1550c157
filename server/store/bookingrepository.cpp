// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/bookingrepository.h"
#include "logging.h"
#include "store/staffrepository.h"

#include "core/isotime.h"
#include "store/ticketrepository.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QRandomGenerator>
#include <QSqlError>
#include <QUuid>


namespace marquee::store {

BookingRepository::BookingRepository(const Database &database, TicketRepository &tickets)
    : m_database(database)
    , m_tickets(tickets)
{
}

QString BookingRepository::newBookingRef()
{
    static const char alphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    QString ref;
    for (int i = 0; i < 8; ++i)
        ref += QLatin1Char(alphabet[QRandomGenerator::system()->bounded(32)]);
    return ref;
}

ConfirmOutcome BookingRepository::confirm(const OrderRecord &order)
{
    ConfirmOutcome out;
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return out;
    const auto state = OrderRepository::lockState(db, order.orderId);
    if (!state)
        return out;
    if (*state != OrderState::Paid) {
        out.kind = ConfirmOutcome::Kind::NotPaid;
        return out;
    }
    const QString bookingId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    const QString ref = newBookingRef();
    const QString seats = toPgTextArray(order.seatIds);

    // Lock in canonical order (as every writer does), then the one conditional UPDATE decides.
    QSqlQuery lock(db);
    prepareQuery(lock, QStringLiteral("SELECT 1 FROM show_seats WHERE show_id = ? AND seat_id = ANY (?::text[]) ORDER BY seat_id FOR UPDATE"));
    lock.addBindValue(order.showId);
    lock.addBindValue(seats);
    if (!execQuery(lock, "lock seats for confirm"))
        return out;
    QSqlQuery book(db);
    prepareQuery(book, QStringLiteral(
        "UPDATE show_seats SET status = 'booked', booking_id = ?::uuid, held_by = NULL, hold_expires_at = NULL, version = version + 1 "
        " WHERE show_id = ? AND seat_id = ANY (?::text[]) AND status = 'held' AND held_by = ?::uuid"));
    book.addBindValue(bookingId);
    book.addBindValue(order.showId);
    book.addBindValue(seats);
    book.addBindValue(order.holdId);
    if (!execQuery(book, "book seats"))
        return out;
    if (book.numRowsAffected() != order.seatIds.size()) {
        out.kind = ConfirmOutcome::Kind::HoldLost; // the Transaction rolls the partial flip back
        return out;
    }

    QSqlQuery insert(db);
    prepareQuery(insert, QStringLiteral(
        "INSERT INTO bookings (booking_id, booking_ref, order_id, show_id, seat_ids, amount_minor, currency, state) "
        "VALUES (?::uuid, ?, ?::uuid, ?, ?::text[], ?, ?, 'confirmed')"));
    insert.addBindValue(bookingId);
    insert.addBindValue(ref);
    insert.addBindValue(order.orderId);
    insert.addBindValue(order.showId);
    insert.addBindValue(seats);
    insert.addBindValue(order.amountMinor);
    insert.addBindValue(order.currency);
    if (!execQuery(insert, "insert booking"))
        return out;
    QSqlQuery bookingSeats(db);
    prepareQuery(bookingSeats, QStringLiteral("INSERT INTO booking_seats (booking_id, show_id, seat_id) "
                                              "SELECT ?::uuid, ?, s FROM unnest(?::text[]) AS s"));
    bookingSeats.addBindValue(bookingId);
    bookingSeats.addBindValue(order.showId);
    bookingSeats.addBindValue(seats);
    if (!execQuery(bookingSeats, "insert booking seats"))
        return out;
    QSqlQuery hold(db);
    prepareQuery(hold, QStringLiteral("UPDATE holds SET released_at = clock_timestamp() WHERE hold_id = ?::uuid AND released_at IS NULL"));
    hold.addBindValue(order.holdId);
    if (!execQuery(hold, "close converted hold"))
        return out;

    const auto tickets = m_tickets.issueTickets(db, bookingId, order.showId, order.seatIds, order.holdId);
    if (!tickets) {
        qCWarning(lcStore) << "cannot issue tickets for order" << order.orderId;
        return out;
    }
    QJsonArray ticketArray;
    for (const IssuedTicket &t : *tickets)
        ticketArray.append(QJsonObject{{QStringLiteral("ticket_id"), t.ticketId}, {QStringLiteral("seat_id"), t.seatId},
                                       {QStringLiteral("qr"), t.qr}});
    const QJsonArray seatArray = QJsonArray::fromStringList(order.seatIds);
    const QJsonObject body{{QStringLiteral("booking_id"), bookingId},
                           {QStringLiteral("booking_ref"), ref},
                           {QStringLiteral("order_id"), order.orderId},
                           {QStringLiteral("show_id"), order.showId},
                           {QStringLiteral("seats"), seatArray},
                           {QStringLiteral("amount_minor"), order.amountMinor},
                           {QStringLiteral("currency"), order.currency},
                           {QStringLiteral("state"), QStringLiteral("CONFIRMED")},
                           {QStringLiteral("tickets"), ticketArray}};

    if (!OrderRepository::transition(db, order.orderId, OrderState::Paid, OrderState::Confirmed, QString()))
        return out;
    if (!OrderRepository::storeAnswer(db, order.orderId, ConfirmAnswer{std::nullopt, body}, bookingId))
        return out;
    if (!OrderRepository::writeEvent(db, QStringLiteral("seats.booked"), bookingId,
                                     {{QStringLiteral("booking_id"), bookingId}, {QStringLiteral("show_id"), order.showId},
                                      {QStringLiteral("seat_ids"), seatArray}})
        || !OrderRepository::writeEvent(db, QStringLiteral("booking.confirmed"), bookingId,
                                        {{QStringLiteral("booking_id"), bookingId}, {QStringLiteral("booking_ref"), ref},
                                         {QStringLiteral("order_id"), order.orderId}, {QStringLiteral("show_id"), order.showId},
                                         {QStringLiteral("seat_ids"), seatArray}, {QStringLiteral("amount_minor"), order.amountMinor},
                                         {QStringLiteral("currency"), order.currency}}))
        return out;
    if (!tx.commit())
        return out;
    m_database.seatWrites().committed(order.showId, order.seatIds, SeatStatus::Booked);
    out.kind = ConfirmOutcome::Kind::Confirmed;
    out.body = body;
    return out;
}

CancelOutcome BookingRepository::cancel(const QString &bookingId, const Principal &principal, const QString &reason, bool overridePolicy,
                                        const CancelPolicy &policy, bool waiveFee, bool admittedOverride)
{
    const QString actor = principal.owner();
    CancelOutcome out;
    const SeatFreeing::Scope freeing(m_database.seatFreeing()); // outlives the transaction: see SeatFreeing
    if (QUuid::fromString(bookingId).isNull() || bookingId.size() != 36) {
        out.kind = CancelOutcome::Kind::NotFound;
        return out;
    }
    QSqlDatabase db = m_database.connection();
    Transaction tx(db);
    if (!tx.isActive())
        return out;
    QSqlQuery b(db);
    prepareQuery(b, QStringLiteral("SELECT b.order_id::text, b.state, b.show_id, array_to_json(b.seat_ids)::text, b.amount_minor, b.currency, "
                                   "       s.starts_at - make_interval(secs => ?) > now(), coalesce(b.cancel_fee_minor, 0) "
                                   "  FROM bookings b JOIN shows s ON s.show_id = b.show_id WHERE b.booking_id = ?::uuid FOR UPDATE OF b"));
    b.addBindValue(policy.cutoffSeconds);
    b.addBindValue(bookingId);
    if (!execQuery(b, "read booking for cancel"))
        return out;
    if (!b.next()) {
        out.kind = CancelOutcome::Kind::NotFound;
        return out;
    }
    out.orderId = b.value(0).toString();
    out.currency = b.value(5).toString();
    if (b.value(1).toString() == QLatin1String("cancelled")) {
        out.kind = CancelOutcome::Kind::AlreadyCancelled;
        out.feeMinor = b.value(7).toLongLong();
        out.refundMinor = qMax<qint64>(0, b.value(4).toLongLong() - out.feeMinor);
        return out;
    }
    const bool withinPolicy = b.value(6).toBool();
    if (!withinPolicy && !overridePolicy) {
        out.kind = CancelOutcome::Kind::OutsidePolicy;
        return out;
    }
    // A ticket scanned in at the door was used: giving its money back is a manager's decision, with a reason. The
    // ticket rows are locked first, in a statement of their own: a scan reads its ticket FOR SHARE, so it either
    // committed before the lock was granted — and the next statement, with a snapshot taken after that, sees its
    // check-in — or waits for this cancellation and then reads the ticket revoked.
    QSqlQuery lockTickets(db);
    prepareQuery(lockTickets, QStringLiteral("SELECT 1 FROM tickets WHERE booking_id = ?::uuid ORDER BY ticket_id FOR UPDATE"));
    lockTickets.addBindValue(bookingId);
    if (!execQuery(lockTickets, "lock tickets for cancel"))
        return out;
    QSqlQuery admitted(db);
    prepareQuery(admitted, QStringLiteral("SELECT t.seat_id FROM tickets t JOIN checkin_firsts c USING (ticket_id) "
                                          "WHERE t.booking_id = ?::uuid ORDER BY t.seat_id"));
    admitted.addBindValue(bookingId);
    if (!execQuery(admitted, "read admitted tickets for cancel"))
        return out;
    while (admitted.next())
        out.admittedSeats << admitted.value(0).toString();
    if (!out.admittedSeats.isEmpty() && !admittedOverride) {
        out.kind = CancelOutcome::Kind::Admitted;
        return out;
    }
    const qint64 showId = b.value(2).toLongLong();
    QStringList seatIds;
    for (const QJsonValue &v : QJsonDocument::fromJson(b.value(3).toString().toUtf8()).array())
        seatIds << v.toString();
    const qint64 amount = b.value(4).toLongLong();
    out.feeMinor = waiveFee ? 0 : policy.feeFor(amount);
    out.refundMinor = amount - out.feeMinor;

    const auto state = OrderRepository::lockState(db, out.orderId);
    if (!state || *state != OrderState::Confirmed) {
        qCWarning(lcStore) << "booking" << bookingId << "is confirmed but its order is not";
        return out;
    }
    QSqlQuery lock(db);
    prepareQuery(lock, QStringLiteral("SELECT 1 FROM show_seats WHERE show_id = ? AND seat_id = ANY (?::text[]) ORDER BY seat_id FOR UPDATE"));
    lock.addBindValue(showId);
    lock.addBindValue(toPgTextArray(seatIds));
    if (!execQuery(lock, "lock seats for cancel"))
        return out;
    QSqlQuery freeSeats(db);
    prepareQuery(freeSeats, QStringLiteral("UPDATE show_seats SET status = 'available', booking_id = NULL, version = version + 1 "
                                      " WHERE show_id = ? AND seat_id = ANY (?::text[]) AND status = 'booked' AND booking_id = ?::uuid"));
    freeSeats.addBindValue(showId);
    freeSeats.addBindValue(toPgTextArray(seatIds));
    freeSeats.addBindValue(bookingId);
    if (!execQuery(freeSeats, "free booked seats") || freeSeats.numRowsAffected() != seatIds.size()) {
        qCWarning(lcStore) << "booking" << bookingId << "does not own all of its seats; cancel refused";
        return out;
    }
    QSqlQuery bs(db);
    prepareQuery(bs, QStringLiteral("UPDATE booking_seats SET active = false WHERE booking_id = ?::uuid"));
    bs.addBindValue(bookingId);
    QSqlQuery upd(db);
    prepareQuery(upd, QStringLiteral("UPDATE bookings SET state = 'cancelled', cancelled_at = clock_timestamp(), cancelled_by = ?, "
                                     "cancel_reason = nullif(?, ''), policy_override = ?, cancel_fee_minor = ?, fee_waived = ? "
                                     "WHERE booking_id = ?::uuid"));
    upd.addBindValue(actor);
    upd.addBindValue(reason);
    upd.addBindValue(!withinPolicy);
    upd.addBindValue(out.feeMinor);
    upd.addBindValue(waiveFee);
    upd.addBindValue(bookingId);
    if (!execQuery(bs, "retire booking seats") || !execQuery(upd, "cancel booking"))
        return out;
    if (!m_tickets.revokeTicketsOfBooking(db, bookingId, reason.isEmpty() ? QStringLiteral("booking_cancelled") : reason))
        return out;
    if (out.refundMinor > 0) {
        if (!OrderRepository::transition(db, out.orderId, OrderState::Confirmed, OrderState::RefundPending, QStringLiteral("booking_cancelled")))
            return out;
        QSqlQuery refund(db);
        prepareQuery(refund, QStringLiteral(
            "INSERT INTO refunds (refund_id, order_id, booking_id, payment_intent_id, provider, amount_minor, currency, reason, status, requested_by) "
            "SELECT gen_random_uuid(), o.order_id, ?::uuid, o.payment_intent_id, o.provider, ?, o.currency, ?, 'pending', ? "
            "  FROM orders o WHERE o.order_id = ?::uuid"));
        refund.addBindValue(bookingId);
        refund.addBindValue(out.refundMinor);
        refund.addBindValue(reason.isEmpty() ? QStringLiteral("booking_cancelled") : reason);
        refund.addBindValue(actor);
        refund.addBindValue(out.orderId);
        if (!execQuery(refund, "record cancel refund") || refund.numRowsAffected() != 1)
            return out;
    } else if (!OrderRepository::transition(db, out.orderId, OrderState::Confirmed, OrderState::Cancelled, QStringLiteral("booking_cancelled"))) {
        return out;
    }
    const QJsonArray seatArray = QJsonArray::fromStringList(seatIds);
    if (!OrderRepository::writeEvent(db, QStringLiteral("seats.freed"), bookingId,
                                     {{QStringLiteral("booking_id"), bookingId}, {QStringLiteral("show_id"), showId},
                                      {QStringLiteral("seat_ids"), seatArray}})
        || !OrderRepository::writeEvent(db, QStringLiteral("booking.cancelled"), bookingId,
                                        {{QStringLiteral("booking_id"), bookingId}, {QStringLiteral("order_id"), out.orderId},
                                         {QStringLiteral("show_id"), showId}, {QStringLiteral("seat_ids"), seatArray},
                                         {QStringLiteral("reason"), reason}, {QStringLiteral("by"), actor},
                                         {QStringLiteral("policy_override"), !withinPolicy},
                                         {QStringLiteral("fee_minor"), out.feeMinor},
                                         {QStringLiteral("fee_waived"), waiveFee},
                                         {QStringLiteral("refund_minor"), out.refundMinor}}))
        return out;
    // Every cancellation, whoever makes it: who, from which device (appendAudit), which booking, how much, why.
    QJsonObject auditDetails{{QStringLiteral("booking_id"), bookingId},
                             {QStringLiteral("order_id"), out.orderId},
                             {QStringLiteral("amount_minor"), amount},
                             {QStringLiteral("currency"), out.currency},
                             {QStringLiteral("refund_minor"), out.refundMinor},
                             {QStringLiteral("fee_minor"), out.feeMinor},
                             {QStringLiteral("fee_waived"), waiveFee},
                             {QStringLiteral("seat_ids"), seatArray}};
    if (!out.admittedSeats.isEmpty())
        auditDetails.insert(QStringLiteral("admitted_seat_ids"), QJsonArray::fromStringList(out.admittedSeats));
    const QString action = !out.admittedSeats.isEmpty() ? QStringLiteral("booking.cancel.admitted_override")
        : withinPolicy                                  ? QStringLiteral("booking.cancel")
                                                        : QStringLiteral("booking.cancel.override");
    if (!StaffRepository::appendAudit(db, principal, {action, QStringLiteral("booking:%1").arg(bookingId), reason, auditDetails}))
        return out;
    if (!tx.commit())
        return out;
    m_database.seatWrites().committed(showId, seatIds, SeatStatus::Available);
    out.kind = CancelOutcome::Kind::Cancelled;
    return out;
}

std::optional<QJsonObject> BookingRepository::bookingWhere(const QString &column, const QString &value, bool *ok)
{
    *ok = true;
    QSqlQuery q(m_database.connection());
    prepareQuery(q, QStringLiteral("SELECT b.booking_id::text, b.booking_ref, b.order_id::text, b.show_id, array_to_json(b.seat_ids)::text, "
                                   "b.amount_minor, b.currency, b.state, b.created_at, b.cancelled_at, coalesce(b.cancel_reason, ''), "
                                   "b.policy_override, o.owner, coalesce(b.cancel_fee_minor, 0), b.fee_waived FROM bookings b JOIN orders o ON o.order_id = b.order_id WHERE b.%1 = ?")
                        .arg(column));
    q.addBindValue(value);
    if (!execQuery(q, "read booking")) {
        *ok = false;
        return std::nullopt;
    }
    if (!q.next())
        return std::nullopt;
    QJsonObject object{{QStringLiteral("booking_id"), q.value(0).toString()},
                       {QStringLiteral("booking_ref"), q.value(1).toString()},
                       {QStringLiteral("order_id"), q.value(2).toString()},
                       {QStringLiteral("show_id"), q.value(3).toLongLong()},
                       {QStringLiteral("seats"), QJsonDocument::fromJson(q.value(4).toString().toUtf8()).array()},
                       {QStringLiteral("amount_minor"), q.value(5).toLongLong()},
                       {QStringLiteral("currency"), q.value(6).toString()},
                       {QStringLiteral("state"), q.value(7).toString()},
                       {QStringLiteral("created_at"), toIsoUtc(q.value(8).toDateTime())},
                       {QStringLiteral("owner"), q.value(12).toString()}};
    if (!q.value(9).isNull()) {
        object.insert(QStringLiteral("cancelled_at"), toIsoUtc(q.value(9).toDateTime()));
        object.insert(QStringLiteral("cancel_reason"), q.value(10).toString());
        object.insert(QStringLiteral("policy_override"), q.value(11).toBool());
        object.insert(QStringLiteral("cancel_fee_minor"), q.value(13).toLongLong());
        object.insert(QStringLiteral("fee_waived"), q.value(14).toBool());
        object.insert(QStringLiteral("refund_minor"), q.value(5).toLongLong() - q.value(13).toLongLong());
    }
    const auto tickets = m_tickets.validTicketsOfBooking(object.value(QStringLiteral("booking_id")).toString());
    if (!tickets) {
        *ok = false;
        return std::nullopt;
    }
    QJsonArray ticketArray;
    for (const IssuedTicket &t : *tickets)
        ticketArray.append(QJsonObject{{QStringLiteral("ticket_id"), t.ticketId}, {QStringLiteral("seat_id"), t.seatId},
                                       {QStringLiteral("qr"), t.qr}});
    object.insert(QStringLiteral("tickets"), ticketArray);
    return object;
}

std::optional<QJsonArray> BookingRepository::bookingsByContact(ContactField field, const QString &value, int limit)
{
    // Two fixed statements (not a column spliced in) so each is prepared once and uses its own partial index.
    static const QString kSelect = QStringLiteral(
        "SELECT booking_id::text, booking_ref, show_id, array_to_json(seat_ids)::text, amount_minor, currency, state, created_at, "
        "       coalesce(customer_email, ''), coalesce(customer_phone, '') FROM bookings WHERE %1 = ? ORDER BY created_at DESC LIMIT ?");
    static const QString kByEmail = kSelect.arg(QStringLiteral("customer_email"));
    static const QString kByPhone = kSelect.arg(QStringLiteral("customer_phone"));
    QSqlQuery *statement = m_database.prepared(field == ContactField::Email ? kByEmail : kByPhone);
    if (!statement)
        return std::nullopt;
    QSqlQuery &q = *statement;
    q.addBindValue(value);
    q.addBindValue(limit);
    if (!execQuery(q, "find bookings by contact")) {
        m_database.resetAfterError(q.lastError());
        return std::nullopt;
    }
    QJsonArray rows;
    while (q.next()) {
        QJsonObject row{{QStringLiteral("booking_id"), q.value(0).toString()},
                        {QStringLiteral("booking_ref"), q.value(1).toString()},
                        {QStringLiteral("show_id"), q.value(2).toLongLong()},
                        {QStringLiteral("seats"), QJsonDocument::fromJson(q.value(3).toString().toUtf8()).array()},
                        {QStringLiteral("amount_minor"), q.value(4).toLongLong()},
                        {QStringLiteral("currency"), q.value(5).toString()},
                        {QStringLiteral("state"), q.value(6).toString()},
                        {QStringLiteral("created_at"), toIsoUtc(q.value(7).toDateTime())}};
        if (!q.value(8).toString().isEmpty())
            row.insert(QStringLiteral("customer_email"), q.value(8).toString());
        if (!q.value(9).toString().isEmpty())
            row.insert(QStringLiteral("customer_phone"), q.value(9).toString());
        rows.append(row);
    }
    return rows;
}

std::optional<CustomerContact> BookingRepository::contactOf(const QString &bookingId)
{
    if (QUuid::fromString(bookingId).isNull() || bookingId.size() != 36)
        return CustomerContact{};
    QSqlQuery *statement = m_database.prepared(QStringLiteral(
        "SELECT coalesce(customer_email, ''), coalesce(customer_phone, '') FROM bookings WHERE booking_id = ?::uuid"));
    if (!statement)
        return std::nullopt;
    QSqlQuery &q = *statement;
    q.addBindValue(bookingId);
    if (!execQuery(q, "read booking contact")) {
        m_database.resetAfterError(q.lastError());
        return std::nullopt;
    }
    CustomerContact contact;
    if (q.next())
        contact = {q.value(0).toString(), q.value(1).toString()};
    q.finish();
    return contact;
}

std::optional<QJsonObject> BookingRepository::booking(const QString &bookingId, bool *ok)
{
    *ok = true;
    if (QUuid::fromString(bookingId).isNull() || bookingId.size() != 36)
        return std::nullopt;
    return bookingWhere(QStringLiteral("booking_id"), bookingId, ok);
}

std::optional<QJsonObject> BookingRepository::bookingByRef(const QString &ref, bool *ok)
{
    *ok = true;
    if (ref.isEmpty() || ref.size() > 12)
        return std::nullopt;
    return bookingWhere(QStringLiteral("booking_ref"), ref.toUpper(), ok);
}

} // namespace marquee::store
