// SPDX-License-Identifier: AGPL-3.0-or-later
#include "reconciler.h"
#include "synclog.h"

#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>

namespace marquee::sync {

namespace {

// Booking states in which the tickets of a booking are no longer valid.
bool bookingVoided(const QString &state)
{
    static const QStringList voided{QStringLiteral("CANCELLED"), QStringLiteral("REFUNDED"), QStringLiteral("REFUND_PENDING"),
                                    QStringLiteral("cancelled"), QStringLiteral("refunded"), QStringLiteral("refund_pending")};
    return voided.contains(state);
}

// GET /bookings?ref= may answer a booking or {bookings: [...]}: take the booking either way.
QJsonObject bookingOf(const ApiResult &result)
{
    const QJsonDocument doc = QJsonDocument::fromJson(result.body);
    if (doc.isArray())
        return doc.array().isEmpty() ? QJsonObject() : doc.array().first().toObject();
    const QJsonObject object = doc.object();
    if (object.contains(QStringLiteral("bookings"))) {
        const QJsonArray list = object.value(QStringLiteral("bookings")).toArray();
        return list.isEmpty() ? QJsonObject() : list.first().toObject();
    }
    return object;
}

} // namespace

int ReconciliationReport::count(const QString &ticketState) const
{
    return static_cast<int>(std::count_if(tickets.begin(), tickets.end(), [&](const TicketLine &l) { return l.state == ticketState; }));
}

int ReconciliationReport::paymentCount(const QString &paymentState) const
{
    return static_cast<int>(std::count_if(payments.begin(), payments.end(), [&](const PaymentLine &l) { return l.state == paymentState; }));
}

QJsonObject ReconciliationReport::toJson() const
{
    QJsonArray ticketLines;
    for (const TicketLine &l : tickets)
        ticketLines.append(QJsonObject{{QStringLiteral("ticket_id"), l.ticketId},
                                       {QStringLiteral("booking_ref"), l.bookingRef},
                                       {QStringLiteral("show_id"), l.showId},
                                       {QStringLiteral("seat_id"), l.seatId},
                                       {QStringLiteral("state"), l.state},
                                       {QStringLiteral("reason"), l.reason}});
    QJsonArray paymentLines;
    for (const PaymentLine &l : payments)
        paymentLines.append(QJsonObject{{QStringLiteral("payment_intent_id"), l.intentId},
                                        {QStringLiteral("order_id"), l.orderId},
                                        {QStringLiteral("amount_minor"), l.amountMinor},
                                        {QStringLiteral("currency"), l.currency},
                                        {QStringLiteral("booking_ref"), l.bookingRef},
                                        {QStringLiteral("state"), l.state},
                                        {QStringLiteral("reason"), l.reason}});
    return QJsonObject{
        {QStringLiteral("started_at"), startedAt.toString(Qt::ISODateWithMs)},
        {QStringLiteral("finished_at"), finishedAt.toString(Qt::ISODateWithMs)},
        {QStringLiteral("complete"), complete},
        {QStringLiteral("summary"),
         QJsonObject{{QStringLiteral("tickets_confirmed"), count(QStringLiteral("confirmed"))},
                     {QStringLiteral("tickets_voided"), count(QStringLiteral("voided"))},
                     {QStringLiteral("tickets_unknown"), count(QStringLiteral("unknown"))},
                     {QStringLiteral("payments_confirmed"), paymentCount(QStringLiteral("confirmed"))},
                     {QStringLiteral("payments_refund_due"), paymentCount(QStringLiteral("refund_due"))},
                     {QStringLiteral("payments_pending"), paymentCount(QStringLiteral("pending"))},
                     {QStringLiteral("payments_unknown"), paymentCount(QStringLiteral("unknown"))}}},
        {QStringLiteral("tickets"), ticketLines},
        {QStringLiteral("payments"), paymentLines},
    };
}

QJsonObject ReconciliationReport::fleetSummary(const QJsonObject &report, int maxProblems)
{
    const QJsonObject counts = report.value(QStringLiteral("summary")).toObject();
    auto count = [&counts](const char *name) { return counts.value(QLatin1String(name)).toInteger(); };
    QJsonArray problems;
    qint64 total = 0;
    auto collect = [&](const char *section, const char *kind, const char *idField) {
        for (const QJsonValue &value : report.value(QLatin1String(section)).toArray()) {
            const QJsonObject line = value.toObject();
            if (line.value(QStringLiteral("state")).toString() == QLatin1String("confirmed"))
                continue;
            ++total;
            if (problems.size() < maxProblems)
                problems.append(QJsonObject{{QStringLiteral("kind"), QLatin1String(kind)},
                                            {QStringLiteral("id"), line.value(QLatin1String(idField)).toString().left(64)},
                                            {QStringLiteral("booking_ref"), line.value(QStringLiteral("booking_ref")).toString().left(32)},
                                            {QStringLiteral("state"), line.value(QStringLiteral("state")).toString()},
                                            {QStringLiteral("reason"), line.value(QStringLiteral("reason")).toString().left(300)}});
        }
    };
    // Payments first: money owed back to a customer matters more than a ticket whose state is unknown.
    collect("payments", "payment", "payment_intent_id");
    collect("tickets", "ticket", "ticket_id");
    const QDateTime finished = QDateTime::fromString(report.value(QStringLiteral("finished_at")).toString(), Qt::ISODateWithMs);
    return QJsonObject{{QStringLiteral("finished_at"), finished.toUTC().toString(Qt::ISODateWithMs)},
                       {QStringLiteral("complete"), report.value(QStringLiteral("complete")).toBool()},
                       {QStringLiteral("tickets"), QJsonObject{{QStringLiteral("confirmed"), count("tickets_confirmed")},
                                                               {QStringLiteral("voided"), count("tickets_voided")},
                                                               {QStringLiteral("unknown"), count("tickets_unknown")}}},
                       {QStringLiteral("payments"), QJsonObject{{QStringLiteral("confirmed"), count("payments_confirmed")},
                                                                {QStringLiteral("refund_due"), count("payments_refund_due")},
                                                                {QStringLiteral("pending"), count("payments_pending")},
                                                                {QStringLiteral("unknown"), count("payments_unknown")}}},
                       {QStringLiteral("problems"), problems},
                       {QStringLiteral("problems_total"), total}};
}

Reconciler::Reconciler(LocalStore &store, ApiClient &api, QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_api(api)
{
}

void Reconciler::run()
{
    if (m_running)
        return;
    m_running = true;
    m_report = ReconciliationReport();
    m_report.startedAt = QDateTime::currentDateTimeUtc();
    m_tickets = m_store.tickets();
    m_payments.clear();
    for (const PaymentRecord &p : m_store.payments()) {
        if (p.terminalResult == QLatin1String("approved"))
            m_payments.append(p);
    }
    m_ticketIndex = 0;
    m_paymentIndex = 0;
    m_bookingCache.clear();
    next();
}

ReconciliationReport Reconciler::runBlocking()
{
    QEventLoop loop;
    ReconciliationReport out;
    const auto connection = connect(this, &Reconciler::finished, &loop, [&](const ReconciliationReport &report) {
        out = report;
        loop.quit();
    });
    run();
    if (m_running)
        loop.exec();
    else
        out = m_report;
    disconnect(connection);
    return out;
}

void Reconciler::next()
{
    // One request at a time: reconciliation is not urgent, and it must not crowd out the replay queue.
    if (m_ticketIndex < m_tickets.size()) {
        checkTicket(m_ticketIndex++);
        return;
    }
    if (m_paymentIndex < m_payments.size()) {
        checkPayment(m_paymentIndex++);
        return;
    }
    finish();
}

void Reconciler::checkTicket(int index)
{
    const TicketRecord ticket = m_tickets.at(index);
    auto conclude = [this, ticket](const QString &state, const QString &reason) {
        m_store.setTicketReconciliation(ticket.ticketId, state, reason);
        m_report.tickets.append({ticket.ticketId, ticket.bookingRef, ticket.showId, ticket.seatId, state, reason});
        QTimer::singleShot(0, this, &Reconciler::next);
    };
    // The revocation list we follow is authoritative for voids, and needs no request.
    if (const auto revoked = m_store.revocation(ticket.ticketId)) {
        conclude(QStringLiteral("voided"), QStringLiteral("revoked (%1)").arg(revoked->reason.isEmpty() ? QStringLiteral("no reason given") : revoked->reason));
        return;
    }
    auto judge = [this, ticket, conclude](const ApiResult &result) {
        if (result.kind == ApiResult::Kind::NetworkError || result.retryable()) {
            m_report.complete = false;
            conclude(QStringLiteral("unknown"), QStringLiteral("the server could not be asked (%1)").arg(result.describe()));
            return;
        }
        if (!result.ok()) {
            conclude(QStringLiteral("unknown"), QStringLiteral("the server does not confirm this booking (%1)").arg(result.describe()));
            return;
        }
        const QJsonObject booking = bookingOf(result);
        const QString state = booking.value(QStringLiteral("state")).toString();
        if (bookingVoided(state)) {
            conclude(QStringLiteral("voided"), QStringLiteral("booking %1 is %2").arg(ticket.bookingRef, state));
            return;
        }
        const QJsonArray tickets = booking.value(QStringLiteral("tickets")).toArray();
        for (const QJsonValue &value : tickets) {
            const QJsonObject t = value.toObject();
            if (t.value(QStringLiteral("ticket_id")).toVariant().toString() != ticket.ticketId)
                continue;
            const QString ticketState = t.value(QStringLiteral("state")).toString();
            if (t.value(QStringLiteral("revoked")).toBool() || ticketState.compare(QLatin1String("revoked"), Qt::CaseInsensitive) == 0) {
                conclude(QStringLiteral("voided"), QStringLiteral("the ticket was revoked"));
                return;
            }
            if (state.compare(QLatin1String("CONFIRMED"), Qt::CaseInsensitive) == 0) {
                conclude(QStringLiteral("confirmed"), QStringLiteral("booking %1 is confirmed").arg(ticket.bookingRef));
                return;
            }
            conclude(QStringLiteral("unknown"), QStringLiteral("booking %1 is %2").arg(ticket.bookingRef, state));
            return;
        }
        conclude(QStringLiteral("voided"), QStringLiteral("booking %1 no longer lists this ticket (reissued)").arg(ticket.bookingRef));
    };
    const QString cacheKey = ticket.bookingId.isEmpty() ? QStringLiteral("ref:") + ticket.bookingRef : QStringLiteral("id:") + ticket.bookingId;
    if (m_bookingCache.contains(cacheKey)) {
        judge(m_bookingCache.value(cacheKey));
        return;
    }
    auto remember = [this, cacheKey, judge](const ApiResult &result) {
        m_bookingCache.insert(cacheKey, result);
        judge(result);
    };
    if (ticket.bookingId.isEmpty())
        m_api.bookingByRef(ticket.bookingRef, remember);
    else
        m_api.booking(ticket.bookingId, remember);
}

void Reconciler::checkPayment(int index)
{
    const PaymentRecord payment = m_payments.at(index);
    auto conclude = [this, payment](const QString &state, const QString &reason, const QString &bookingRef) {
        m_report.payments.append({payment.intentId, payment.orderId, payment.amountMinor, payment.currency,
                                  bookingRef.isEmpty() ? payment.bookingRef : bookingRef, state, reason});
        QTimer::singleShot(0, this, &Reconciler::next);
    };
    // A confirm still in the queue (its key is the intent id) decides this payment when it is replayed: its answer
    // carries the booking and the tickets the kiosk needs to print. Deciding it here from the order's state alone
    // would mark it confirmed without them (a reconnect can reach this while the confirm waits out its backoff).
    if (payment.state == QLatin1String("awaiting_confirm")) {
        const std::optional<PendingAction> queued = m_store.actionByKey(payment.intentId);
        if (queued && queued->state == ActionState::Pending) {
            conclude(QStringLiteral("pending"), QStringLiteral("the confirm is still queued"), {});
            return;
        }
    }
    m_api.order(payment.orderId, [this, payment, conclude](const ApiResult &result) {
        if (!result.ok()) {
            if (result.kind == ApiResult::Kind::NetworkError || result.retryable())
                m_report.complete = false;
            // What we know locally still counts: a refusal recorded by the confirm replay is a refund due.
            if (payment.state == QLatin1String("refund_due"))
                conclude(QStringLiteral("refund_due"), payment.note, {});
            else if (payment.state == QLatin1String("confirmed"))
                conclude(QStringLiteral("unknown"), QStringLiteral("confirmed here, the server could not confirm it (%1)").arg(result.describe()), {});
            else
                conclude(QStringLiteral("pending"), QStringLiteral("the confirm is still queued (%1)").arg(result.describe()), {});
            return;
        }
        const QJsonObject order = result.json();
        const QString state = order.value(QStringLiteral("state")).toString().toUpper();
        const QString bookingRef = order.value(QStringLiteral("booking_ref")).toString();
        if (state == QLatin1String("CONFIRMED")) {
            if (payment.state != QLatin1String("confirmed"))
                m_store.setPaymentState(payment.intentId, QStringLiteral("confirmed"), QStringLiteral("Confirmed by the server."),
                                        order.value(QStringLiteral("booking_id")).toVariant().toString(), bookingRef);
            conclude(QStringLiteral("confirmed"), QStringLiteral("the order is confirmed"), bookingRef);
        } else if (state == QLatin1String("REFUND_PENDING") || state == QLatin1String("REFUNDED") || state == QLatin1String("EXPIRED")
                   || state == QLatin1String("CANCELLED") || state == QLatin1String("FAILED") || payment.state == QLatin1String("refund_due")) {
            const QString reason = QStringLiteral("the order is %1: the approved payment is refunded").arg(state);
            if (payment.state != QLatin1String("refund_due"))
                m_store.setPaymentState(payment.intentId, QStringLiteral("refund_due"), reason);
            conclude(QStringLiteral("refund_due"), reason, bookingRef);
        } else {
            conclude(QStringLiteral("pending"), QStringLiteral("the order is %1; the confirm is still queued").arg(state), bookingRef);
        }
    });
}

void Reconciler::finish()
{
    m_report.finishedAt = QDateTime::currentDateTimeUtc();
    m_store.saveReport(QJsonDocument(m_report.toJson()).toJson(QJsonDocument::Compact));
    m_running = false;
    qCInfo(lcSync) << "reconciled" << m_report.tickets.size() << "tickets and" << m_report.payments.size() << "payments; complete:" << m_report.complete;
    Q_EMIT finished(m_report);
}

} // namespace marquee::sync
