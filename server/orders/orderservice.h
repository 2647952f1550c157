// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/role.h"
#include "orders/orderoutcome.h"
#include "orders/paymentprovider.h"
#include "orders/paymentsettings.h"
#include "orders/paymentwebhook.h"
#include "store/bookingrepository.h"
#include "store/orderrepository.h"
#include "store/paymentrepository.h"

#include <QMutex>
#include <memory>

namespace marquee::store {
struct Principal;
}

namespace marquee::payments {

/**
 * @brief Orders, payments, confirmation, cancellation and reconciliation: the only place that talks to payment
 * providers. Thread-safe like the repositories (no connection held; provider calls are blocking and made outside
 * any database transaction). Every step is a conditional state transition, so concurrent drivers (the customer's
 * confirm, a webhook, the reconciler) can race and exactly one of them moves the order each time. Each path ends in an
 * OrderOutcome: the domain value, or a Refusal with a catalogue code; it knows nothing of HTTP.
 */
class OrderService
{
public:
    OrderService(const PaymentSettings &settings, store::OrderRepository &orders, store::PaymentRepository &payments,
                 store::BookingRepository &bookings);

    /** @brief POST /api/v1/orders. */
    OrderOutcome<CreatedOrder> createOrder(const store::Principal &caller, const QString &holdId, bool cash, const store::CashTender &tender = {},
                                           const store::CustomerContact &contact = {});
    /** @brief POST /api/v1/orders/{id}/confirm: drives the order on as far as it goes and gives its stored answer. */
    OrderOutcome<SettledOrder> confirm(const store::Principal &caller, const QString &orderId, const QString &intentId);
    /** @brief GET /api/v1/orders/{id}. */
    OrderOutcome<store::OrderRecord> order(const store::Principal &caller, const QString &orderId);
    /**
     * @brief POST /webhooks/payment: @p event, parsed from @p rawBody once its signature was checked (the route
     * does both: webhookSignatureValid(), parsePaymentEvent()).
     */
    OrderOutcome<WebhookReceipt> webhook(const PaymentEvent &event, const QByteArray &rawBody);
    /** @brief The secret the provider signs its webhooks with. */
    QByteArray webhookSecret() const { return m_settings.webhookSecret; }
    /**
     * @brief POST /api/v1/bookings/{id}/cancel; @p waiveFee: a manager refunds the fee too (needs a reason);
     * @p admittedOverride: a manager refunds a booking with a ticket already admitted at the door (needs a reason).
     * A till's own token is refused (staff_session_required): refunds at a till are made in a staff session.
     */
    OrderOutcome<Cancellation> cancelBooking(const store::Principal &caller, const QString &bookingId, const QString &reason, bool waiveFee = false,
                                             bool admittedOverride = false);
    /**
     * @brief DELETE /api/v1/holds/{id} of a hold frozen by the unsettled order @p orderId: the intent is cancelled at
     * the provider and the order ends PENDING_PAYMENT → CANCELLED, freeing the seats. When the customer had
     * already paid, the order is driven on and the seats stay with it (OrderPaid); when the provider does not
     * answer, nothing changes (ReleaseStatusUnknown).
     */
    OrderOutcome<ReleasedHold> abandonOrder(const QString &holdId, const QString &orderId);
    /** @brief GET /api/v1/bookings/{id} and ?ref=. */
    OrderOutcome<BookingView> booking(const store::Principal &caller, const QString &bookingId, const QString &ref);

    /**
     * @brief One reconciliation sweep over orders not settled for reconcileMinAgeSeconds: asks the provider and
     * drives each one on (confirm, fail, expire, refund). Returns how many orders it moved, -1 on a database error.
     */
    int reconcileOnce(int limit = 200);

    /** @brief Point card payments at another provider URL (tests start the simulator after the server). */
    void setProviderUrl(const QString &url);

private:
    /**
     * @brief Which part of the server is driving an order on: recorded as the requested_by of a refund it has to
     * make ("system:confirm", …), so the refunds report can say who found a lost hold.
     */
    enum class Driver { Confirm, Webhook, Reconciler, HoldRelease };
    static QString systemActor(Driver driver);

    std::shared_ptr<PaymentProvider> providerFor(const QString &name);
    /** @brief The order @p orderId when @p caller may see it (its owner, or a manager); otherwise OrderNotFound, or
     *  OrderStoreUnavailable when the database does not answer. */
    OrderOutcome<store::OrderRecord> visibleOrder(const store::Principal &caller, const QString &orderId);
    /** @brief A confirmed order the provider reports refunded (@p refunded): cancel its booking, revoke its tickets
     *  and record the refund the provider made (audited as the system's). False when the database did not answer. */
    bool cancelRefundedAtProvider(const store::OrderRecord &order, const Intent &refunded);
    /** @brief Drive an order whose provider status is known; returns the stored answer afterwards. */
    OrderOutcome<SettledOrder> drive(const store::OrderRecord &order, const std::optional<Intent> &status, const QString &providerError, Driver driver);
    /** @brief PAID → CONFIRMED, or → REFUND_PENDING (and the refund) when the hold was lost. */
    void finalize(const store::OrderRecord &order, Driver driver);
    /** @brief Ask the provider for the pending refund of @p order and complete it. */
    bool issueRefund(const QString &orderId);
    /** @brief The stored answer of @p orderId, or why there is none yet (payment pending, confirm in progress). */
    OrderOutcome<SettledOrder> answerFor(const QString &orderId);

    PaymentSettings m_settings;
    store::OrderRepository &m_orders;
    store::PaymentRepository &m_payments;
    store::BookingRepository &m_bookings;
    QMutex m_providerMutex;
    std::shared_ptr<PaySimProvider> m_card;
    std::shared_ptr<CashProvider> m_cash;
};

} // namespace marquee::payments
