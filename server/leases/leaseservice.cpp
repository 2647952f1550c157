// SPDX-License-Identifier: AGPL-3.0-or-later
#include "leases/leaseservice.h"

#include "core/errorcatalogue.h"
#include "core/isotime.h"
#include "store/bookingrepository.h"
#include "store/orderrepository.h"

#include <QUuid>

namespace marquee {

namespace {
Refusal storeDown()
{
    return {ErrorCode::OrderStoreUnavailable, {}, {}};
}
Refusal refused(ErrorCode code, const QJsonObject &data = {}, const QStringList &arguments = {})
{
    return {code, data, arguments};
}
bool isManager(const store::Principal &caller)
{
    return caller.role == Role::Manager || caller.role == Role::Admin;
}
QString newId()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}
QString text(const QJsonObject &data, const char *field)
{
    return data.value(QLatin1String(field)).toString();
}
/** @brief The catalogue's refusal for a decision of mq_place_lease, mq_return_lease or mq_lease_sale. */
std::optional<Refusal> refusal(const QString &decision, const QJsonObject &data)
{
    if (decision == QLatin1String("seats_taken"))
        return refused(ErrorCode::LeaseSeatsUnavailable,
            {{QStringLiteral("held_seats"), data.value(QStringLiteral("held_seats"))}});
    if (decision == QLatin1String("not_enough_seats"))
        return refused(
            ErrorCode::NotEnoughSeats, data, {QString::number(data.value(QStringLiteral("available")).toInt())});
    if (decision == QLatin1String("unknown_seat"))
        return refused(ErrorCode::UnknownSeat, data);
    if (decision == QLatin1String("lease_limit_reached"))
        return refused(ErrorCode::LeaseLimitReached, data,
            {QString::number(data.value(QStringLiteral("leased")).toInt()),
                QString::number(data.value(QStringLiteral("limit")).toInt())});
    if (decision == QLatin1String("show_starting"))
        return refused(ErrorCode::ShowStarting, data, {text(data, "return_by")});
    if (decision == QLatin1String("key_reused"))
        return refused(ErrorCode::IdempotencyKeyReused);
    if (decision == QLatin1String("show_not_found"))
        return refused(ErrorCode::ShowNotFound);
    if (decision == QLatin1String("sales_not_open"))
        return refused(ErrorCode::SalesNotOpen);
    if (decision == QLatin1String("lease_not_found"))
        return refused(ErrorCode::LeaseNotFound);
    if (decision == QLatin1String("sale_conflict"))
        return refused(ErrorCode::SaleConflict, data);
    if (decision == QLatin1String("lease_returned"))
        return refused(ErrorCode::LeaseReturned);
    if (decision == QLatin1String("sale_outside_lease"))
        return refused(ErrorCode::SaleOutsideLease, data);
    if (decision == QLatin1String("seats_not_in_lease"))
        return refused(ErrorCode::SeatsNotInLease, data);
    if (decision == QLatin1String("seats_not_leased"))
        return refused(ErrorCode::SeatsNotLeased, data);
    if (decision == QLatin1String("price_mismatch"))
        return refused(
            ErrorCode::PriceMismatch, data, {QString::number(data.value(QStringLiteral("amount_minor")).toInteger())});
    return std::nullopt;
}
} // namespace

LeaseService::LeaseService(const store::LeaseDefaults &defaults, const payments::PaymentSettings &payments, store::LeaseRepository &leases,
                           store::OrderRepository &orders, store::BookingRepository &bookings)
    : m_defaults(defaults)
    , m_payments(payments)
    , m_leases(leases)
    , m_orders(orders)
    , m_bookings(bookings)
{
}

LeaseOutcome<PlacedLease> LeaseService::place(const store::Principal &caller, const LeaseRequest &request)
{
    const qint64 till = m_leases.tillOf(caller);
    if (till < 0)
        return storeDown();
    if (till == 0)
        return refused(ErrorCode::LeaseNeedsTill);
    const store::LeaseDecision decision = m_leases.place(newId(), request.showId, till, caller.owner(), request.idempotencyKey, request.fingerprint,
                                                         request.seatIds, request.best, m_defaults, request.devicePublicKey);
    if (!decision.ok)
        return storeDown();
    if (decision.decision == QLatin1String("granted"))
        return PlacedLease{decision.data};
    return refusal(decision.decision, decision.data).value_or(storeDown());
}

LeaseOutcome<LeaseView> LeaseService::lease(const store::Principal &caller, const QString &leaseId)
{
    bool ok = true;
    const auto found = m_leases.lease(leaseId, &ok);
    if (!ok)
        return storeDown();
    if (found && !isManager(caller)) {
        const qint64 till = m_leases.tillOf(caller);
        if (till < 0)
            return storeDown();
        if (found->value(QStringLiteral("device_id")).toInteger() != till)
            return refused(ErrorCode::LeaseNotFound); // another till's lease is answered as if it did not exist
    }
    if (!found)
        return refused(ErrorCode::LeaseNotFound);
    const auto delegation = m_leases.delegationOf(leaseId);
    if (!delegation)
        return storeDown();
    QJsonObject body = *found;
    body.insert(QStringLiteral("delegation"), *delegation);
    return LeaseView{body};
}

LeaseOutcome<ShowLeases> LeaseService::leasesOfShow(const store::Principal &caller, qint64 showId)
{
    qint64 till = 0;
    if (!isManager(caller)) {
        till = m_leases.tillOf(caller);
        if (till < 0)
            return storeDown();
        if (till == 0)
            return refused(ErrorCode::LeaseNeedsTill);
    }
    const auto leases = m_leases.leasesOfShow(showId, till);
    if (!leases)
        return storeDown();
    // The settings in force go along, so a till knows how many seats it may keep leased and when they go back.
    auto settings = m_leases.settings(showId, m_defaults);
    if (!settings)
        return storeDown();
    settings->remove(QStringLiteral("show_id"));
    return ShowLeases{showId, *leases, *settings};
}

LeaseOutcome<EndedLease> LeaseService::end(const store::Principal &caller, const QString &leaseId)
{
    const qint64 till = m_leases.tillOf(caller);
    if (till < 0)
        return storeDown();
    const store::LeaseEnd ended = m_leases.end(leaseId, caller, till, isManager(caller));
    if (!ended.ok)
        return storeDown();
    if (ended.decision == QLatin1String("lease_not_found"))
        return refused(ErrorCode::LeaseNotFound);
    return EndedLease{ended.lease, ended.freed};
}

LeaseOutcome<BookedSale> LeaseService::reportSale(
    const store::Principal &caller, const QString &leaseId, const store::LeaseSale &sale)
{
    const qint64 till = m_leases.tillOf(caller);
    if (till < 0)
        return storeDown();
    if (till == 0)
        return refused(ErrorCode::LeaseNotFound);
    // Device-signed tickets are checked before anything is recorded: a forged or mismatching one changes nothing.
    bool checked = true;
    const auto badTicket = m_leases.checkDelegatedTickets(leaseId, till, sale, &checked);
    if (!checked)
        return storeDown();
    if (badTicket && badTicket->incomplete)
        return refused(ErrorCode::DelegatedTicketsIncomplete,
                       {{QStringLiteral("missing_seats"), QJsonArray::fromStringList(badTicket->missingSeats)},
                        {QStringLiteral("duplicate_seats"), QJsonArray::fromStringList(badTicket->duplicateSeats)}});
    if (badTicket)
        return refused(ErrorCode::DelegatedTicketInvalid,
                       {{QStringLiteral("ticket_id"), badTicket->ticketId},
                        {QStringLiteral("seat_id"), badTicket->seatId},
                        {QStringLiteral("reason"), badTicket->reason}},
                       {badTicket->ticketId});
    // The sale's own hold lives through the order's payment window; the order then freezes it again.
    const int holdTtl = m_payments.paymentWindowSeconds + m_payments.graceSeconds;
    const store::LeaseDecision decision = m_leases.recordSale(leaseId, till, caller.owner(), sale, holdTtl);
    if (!decision.ok)
        return storeDown();
    if (decision.decision == QLatin1String("accepted") || decision.decision == QLatin1String("recorded"))
        return book(caller, leaseId, sale, till, decision.data);
    return refusal(decision.decision, decision.data).value_or(storeDown());
}

LeaseOutcome<BookedSale> LeaseService::book(const store::Principal &caller, const QString &leaseId,
    const store::LeaseSale &sale, qint64 deviceId, const QJsonObject &recorded)
{
    const QString holdId = text(recorded, "hold_id");
    QString orderId = text(recorded, "order_id");
    QString bookingId = text(recorded, "booking_id");
    if (bookingId.isEmpty()) {
        if (orderId.isEmpty()) {
            // The ordinary cash order of the sale's hold (priced when the hold began: the moment of the sale). A
            // retry after a crash finds the order this created and goes on with it.
            store::NewOrder order;
            order.orderId = newId();
            order.holdId = holdId;
            order.owner = caller.owner();
            order.channel = QStringLiteral("till");
            order.deviceId = deviceId;
            order.staffId = caller.staffId;
            order.provider = QStringLiteral("cash");
            order.tender.tenderedMinor = sale.tenderedMinor;
            order.paymentWindowSeconds = m_payments.paymentWindowSeconds;
            order.graceSeconds = m_payments.graceSeconds;
            if (caller.kind == store::Principal::Kind::Session)
                order.staff = caller;
            order.soldUnderLease = true;
            const store::CreateOrderOutcome created = m_orders.create(order);
            if (!created.ok)
                return storeDown();
            if (created.order)
                orderId = created.order->orderId;
            else if (created.refusal == ErrorCode::OrderExists)
                orderId = created.extra.value(QStringLiteral("order_id")).toString();
            else
                return refused(*created.refusal, created.extra);
            if (!m_leases.noteSaleResult(leaseId, sale.deviceSeq, orderId, {}))
                return storeDown();
        }
        bool ok = true;
        auto order = m_orders.find(orderId, &ok);
        if (!ok || !order)
            return storeDown();
        // Each step is a conditional transition: a concurrent retry of the same upload (or the reconciler) that
        // moved the order first leaves this one nothing to do, and the next read shows where it stands.
        if (order->state == OrderState::Created) {
            m_orders.attachIntent(orderId, QStringLiteral("cash_") + QUuid::createUuid().toString(QUuid::Id128), QStringLiteral("cash"),
                                  order->amountMinor, order->currency);
            order = m_orders.find(orderId, &ok);
        }
        if (ok && order && order->state == OrderState::PendingPayment) {
            bool dbError = false;
            m_orders.markPaid(orderId, &dbError);
            order = m_orders.find(orderId, &ok);
        }
        if (ok && order && order->state == OrderState::Paid) {
            m_bookings.confirm(*order);
            order = m_orders.find(orderId, &ok);
        }
        if (!ok || !order)
            return storeDown();
        if (order->state != OrderState::Confirmed) {
            if (order->state == OrderState::Created || order->state == OrderState::PendingPayment || order->state == OrderState::Paid)
                return storeDown(); // not finished: the same upload again goes on from here
            return refused(ErrorCode::SaleNotBooked,
                {{QStringLiteral("order_id"), orderId}, {QStringLiteral("state"), toString(order->state)}});
        }
        bookingId = order->bookingId;
        if (!m_leases.noteSaleResult(leaseId, sale.deviceSeq, orderId, bookingId))
            return storeDown();
    }
    bool ok = true;
    const auto booking = m_bookings.booking(bookingId, &ok);
    if (!ok || !booking)
        return storeDown();
    return BookedSale{leaseId, sale.deviceSeq, *booking};
}

LeaseOutcome<LeaseSettings> LeaseService::settings(qint64 showId)
{
    const auto settings = m_leases.settings(showId, m_defaults);
    if (!settings)
        return storeDown();
    if (settings->isEmpty())
        return refused(ErrorCode::ShowNotFound);
    return LeaseSettings{*settings};
}

LeaseOutcome<LeaseSettings> LeaseService::setSettings(const store::Principal &caller, qint64 showId,
    std::optional<int> seatsPerDevice, std::optional<int> returnBeforeSeconds, std::optional<int> graceSeconds)
{
    bool known = true;
    if (!m_leases.setSettings(showId, seatsPerDevice, returnBeforeSeconds, graceSeconds, caller, &known))
        return storeDown();
    if (!known)
        return refused(ErrorCode::ShowNotFound);
    return settings(showId);
}

} // namespace marquee
