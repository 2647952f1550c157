// SPDX-License-Identifier: AGPL-3.0-or-later
#include "orders/orderservice.h"
#include "orders/paymentwebhook.h"
#include "logging.h"

#include "core/isotime.h"
#include "store/authrepository.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QUuid>


namespace marquee::payments {

using store::OrderRecord;

namespace {
ServiceReply error(int status, const QString &code, const QString &message, QJsonObject extra = {})
{
    extra.insert(QStringLiteral("error"), code);
    extra.insert(QStringLiteral("message"), message);
    return {status, extra};
}
ServiceReply errorReply(const ApiError &refusal)
{
    return {refusal.httpStatus, refusal.toJson()};
}
ServiceReply storeDown()
{
    return error(503, QStringLiteral("unavailable"), QStringLiteral("The booking database is not answering; nothing was changed. Try again shortly."));
}
bool isManager(Role role)
{
    return role == Role::Manager || role == Role::Admin;
}
bool isStaff(Role role)
{
    return role == Role::Cashier || isManager(role);
}
QString channelOf(Role role)
{
    switch (role) {
    case Role::Kiosk:
        return QStringLiteral("kiosk");
    case Role::Till:
    case Role::Cashier:
        return QStringLiteral("till");
    default:
        return QStringLiteral("api");
    }
}
} // namespace

OrderService::OrderService(const PaymentSettings &settings, store::OrderRepository &orders, store::PaymentRepository &payments,
                           store::BookingRepository &bookings)
    : m_settings(settings)
    , m_orders(orders)
    , m_payments(payments)
    , m_bookings(bookings)
    , m_cash(std::make_shared<CashProvider>())
{
    setProviderUrl(settings.providerUrl);
}

void OrderService::setProviderUrl(const QString &url)
{
    QMutexLocker lock(&m_providerMutex);
    m_card = std::make_shared<PaySimProvider>(QUrl(url), m_settings.providerTimeoutMs);
}

std::shared_ptr<PaymentProvider> OrderService::providerFor(const QString &name)
{
    if (name == QLatin1String("cash"))
        return m_cash;
    QMutexLocker lock(&m_providerMutex);
    return m_card;
}

ServiceReply OrderService::createOrder(const store::Principal &caller, const QString &holdId, bool cash, const store::CashTender &tender,
                                       const store::CustomerContact &contact)
{
    if (cash && caller.role == Role::Kiosk)
        return error(403, QStringLiteral("payment_method_not_allowed"), QStringLiteral("Kiosks take cards only; cash is for tills and cashiers."));
    std::shared_ptr<PaymentProvider> provider = providerFor(cash ? QStringLiteral("cash") : QStringLiteral("paysim"));
    if (!cash && !static_cast<PaySimProvider *>(provider.get())->isConfigured())
        return error(503, QStringLiteral("payment_provider_unavailable"), QStringLiteral("No card payment provider is configured; nothing was changed."));

    store::NewOrder n;
    n.orderId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    n.holdId = holdId;
    n.owner = caller.owner();
    n.channel = channelOf(caller.role);
    n.deviceId = caller.kind == store::Principal::Kind::Device ? caller.id : 0;
    n.staffId = caller.staffId;
    n.provider = provider->name();
    n.tender = tender;
    n.contact = contact;
    n.paymentWindowSeconds = m_settings.paymentWindowSeconds;
    n.graceSeconds = m_settings.graceSeconds;
    if (caller.kind == store::Principal::Kind::Session)
        n.staff = caller;
    const store::CreateOrderOutcome created = m_orders.create(n);
    if (!created.ok)
        return storeDown();
    if (!created.order)
        return errorReply(apiError(*created.refusal, {}, created.extra));
    const OrderRecord &order = *created.order;

    // The provider is called outside any transaction; until the intent is attached the order is CREATED and
    // nobody can pay it (only this server knows the intent id), so a crash here is resolved by the reconciler.
    QString providerError;
    const qint64 providerAmount = cash ? order.amountMinor : order.cardMinor(); // a split's cash part is already in the drawer
    const auto intent = provider->createIntent(order.orderId, Money{providerAmount, order.currency}, &providerError);
    if (!intent) {
        qCWarning(lcPayments) << "cannot create payment intent for order" << order.orderId << providerError;
        bool dbError = false;
        m_orders.endWithoutBooking(order.orderId, OrderState::Created, OrderState::Failed, QStringLiteral("provider_unavailable"),
                                   QString(), 502,
                                   error(502, QStringLiteral("payment_provider_unavailable"), QStringLiteral("The payment provider did not answer.")).body,
                                   &dbError, false);
        return error(502, QStringLiteral("payment_provider_unavailable"),
                     QStringLiteral("The payment provider did not answer; no money was taken and the hold is still yours. Try again."));
    }
    if (!m_orders.attachIntent(order.orderId, intent->id, provider->name(), providerAmount, order.currency))
        return storeDown();
    QJsonObject body{{QStringLiteral("order_id"), order.orderId},
                     {QStringLiteral("hold_id"), order.holdId},
                     {QStringLiteral("show_id"), order.showId},
                     {QStringLiteral("amount_minor"), order.amountMinor},
                     {QStringLiteral("currency"), order.currency},
                     {QStringLiteral("payment_intent_id"), intent->id},
                     {QStringLiteral("payment_method"), order.toJson().value(QStringLiteral("payment_method"))},
                     {QStringLiteral("state"), toString(OrderState::PendingPayment)},
                     {QStringLiteral("expires_at"), toIsoUtc(order.expiresAt)}};
    const QJsonObject stored = order.toJson();
    for (const QString &field : {QStringLiteral("cash_minor"), QStringLiteral("card_minor"), QStringLiteral("tendered_minor"), QStringLiteral("change_minor")}) {
        if (stored.contains(field))
            body.insert(field, stored.value(field));
    }
    return {201, body};
}

ServiceReply OrderService::answerFor(const QString &orderId)
{
    bool ok = true;
    const auto order = m_orders.find(orderId, &ok);
    if (!ok || !order)
        return storeDown();
    if (order->resultStatus)
        return {order->resultStatus, QJsonDocument::fromJson(order->resultBody).object()};
    const QJsonObject state{{QStringLiteral("state"), toString(order->state)}, {QStringLiteral("order_id"), orderId}};
    switch (order->state) {
    case OrderState::Created:
    case OrderState::PendingPayment:
        return error(409, QStringLiteral("payment_pending"), QStringLiteral("The payment has not completed yet; confirm again after paying."), state);
    case OrderState::Paid:
        return error(503, QStringLiteral("confirm_in_progress"), QStringLiteral("The payment went through; the booking is being completed. Confirm again shortly."), state);
    default:
        return error(409, QStringLiteral("order_") + toString(order->state).toLower(),
                     QStringLiteral("This order is %1.").arg(toString(order->state)), state);
    }
}

QString OrderService::systemActor(Driver driver)
{
    switch (driver) {
    case Driver::Confirm:
        return QStringLiteral("system:confirm");
    case Driver::Webhook:
        return QStringLiteral("system:webhook");
    case Driver::Reconciler:
        return QStringLiteral("system:reconciler");
    case Driver::HoldRelease:
        return QStringLiteral("system:hold_release");
    }
    return QStringLiteral("system");
}

void OrderService::finalize(const OrderRecord &order, Driver driver)
{
    const store::ConfirmOutcome outcome = m_bookings.confirm(order);
    switch (outcome.kind) {
    case store::ConfirmOutcome::Kind::Confirmed:
        qCInfo(lcPayments) << "order" << order.orderId << "confirmed as booking" << outcome.body.value(QStringLiteral("booking_ref")).toString();
        return;
    case store::ConfirmOutcome::Kind::HoldLost: {
        qCWarning(lcPayments) << "order" << order.orderId << "was paid but its hold was lost; refunding";
        bool dbError = false;
        m_orders.markHoldLost(order.orderId, systemActor(driver),
                              error(409, QStringLiteral("hold_lost"),
                                    QStringLiteral("The seats were released before the payment completed; the payment is being refunded."),
                                    {{QStringLiteral("state"), toString(OrderState::RefundPending)}, {QStringLiteral("order_id"), order.orderId}})
                                  .body,
                              &dbError);
        issueRefund(order.orderId);
        return;
    }
    case store::ConfirmOutcome::Kind::NotPaid:
        return;
    case store::ConfirmOutcome::Kind::Error:
        qCWarning(lcPayments) << "confirm of order" << order.orderId << "failed in the database; the reconciler will retry";
        return;
    }
}

bool OrderService::issueRefund(const QString &orderId)
{
    bool ok = true;
    const auto refund = m_payments.refundOfOrder(orderId, &ok);
    if (!ok || !refund)
        return false;
    if (refund->status == QLatin1String("succeeded"))
        return m_payments.completeRefund(orderId, refund->providerRefundId);
    // A split payment's cash part was handed back from the drawer; only the card part goes through the provider.
    const qint64 providerAmount = refund->provider == QLatin1String("cash") ? refund->amountMinor : refund->amountMinor - refund->cashMinor;
    if (providerAmount == 0)
        return m_payments.completeRefund(orderId, QStringLiteral("cash_") + refund->refundId);
    QString providerError;
    const auto result = providerFor(refund->provider)->refund(refund->paymentIntentId, providerAmount, &providerError);
    if (!result || !result->succeeded) {
        qCWarning(lcPayments) << "refund of order" << orderId << "not done yet:" << providerError;
        return false;
    }
    return m_payments.completeRefund(orderId, result->refundId);
}

ServiceReply OrderService::drive(const OrderRecord &order, const std::optional<Intent> &status, const QString &providerError, Driver driver)
{
    const QJsonObject state{{QStringLiteral("state"), toString(order.state)}, {QStringLiteral("order_id"), order.orderId}};
    if (!status) {
        qCWarning(lcPayments) << "payment status of order" << order.orderId << "unknown:" << providerError;
        return error(503, QStringLiteral("payment_status_unknown"),
                     QStringLiteral("The payment provider did not answer; nothing was changed. Confirm again shortly."), state);
    }
    if (order.provider != QLatin1String("cash") && status->status == IntentStatus::Succeeded
        && (status->amountMinor != order.cardMinor() || status->currency != order.currency)) {
        // Fail closed: money that does not match the order is neither booked nor silently accepted.
        qCCritical(lcPayments) << "provider reports" << status->amountMinor << status->currency << "for order" << order.orderId
                               << "of" << order.amountMinor << order.currency;
        return error(503, QStringLiteral("payment_status_unknown"), QStringLiteral("The payment does not match the order; staff will resolve it."), state);
    }
    bool dbError = false;
    switch (status->status) {
    case IntentStatus::Succeeded:
        m_orders.markPaid(order.orderId, &dbError);
        if (dbError)
            return storeDown();
        {
            bool ok = true;
            const auto paid = m_orders.find(order.orderId, &ok);
            if (paid && paid->state == OrderState::Paid)
                finalize(*paid, driver);
        }
        break;
    case IntentStatus::Failed: {
        const QString reason = status->declineReason.isEmpty() ? QStringLiteral("declined") : status->declineReason;
        m_orders.endWithoutBooking(order.orderId, OrderState::PendingPayment, OrderState::Failed, reason, QStringLiteral("failed"), 402,
                                   error(402, QStringLiteral("payment_failed"), QStringLiteral("The payment was declined; the seats were released."),
                                         {{QStringLiteral("state"), toString(OrderState::Failed)}, {QStringLiteral("reason"), reason},
                                          {QStringLiteral("order_id"), order.orderId}})
                                       .body,
                                   &dbError);
        break;
    }
    case IntentStatus::Canceled:
        m_orders.endWithoutBooking(order.orderId, OrderState::PendingPayment, OrderState::Expired, QStringLiteral("payment_window_closed"),
                                   QStringLiteral("canceled"), 409,
                                   error(409, QStringLiteral("order_expired"), QStringLiteral("Nobody paid within the payment window; the seats were released."),
                                         {{QStringLiteral("state"), toString(OrderState::Expired)}, {QStringLiteral("order_id"), order.orderId}})
                                       .body,
                                   &dbError);
        break;
    case IntentStatus::RequiresPayment:
        break;
    case IntentStatus::Refunded:
        qCCritical(lcPayments) << "provider reports a refund for unsettled order" << order.orderId;
        return error(503, QStringLiteral("payment_status_unknown"), QStringLiteral("The payment state is inconsistent; staff will resolve it."), state);
    }
    if (dbError)
        return storeDown();
    return answerFor(order.orderId);
}

std::optional<OrderRecord> OrderService::visibleOrder(const store::Principal &caller, const QString &orderId, ServiceReply *refusal)
{
    bool ok = true;
    auto order = m_orders.find(orderId, &ok);
    if (!ok) {
        *refusal = storeDown();
        return std::nullopt;
    }
    // Someone else's order is answered as if it did not exist: its id tells nothing.
    if (!order || (order->owner != caller.owner() && !isManager(caller.role))) {
        *refusal = error(404, QStringLiteral("order_not_found"), QStringLiteral("There is no order with this id for you."));
        return std::nullopt;
    }
    return order;
}

ServiceReply OrderService::confirm(const store::Principal &caller, const QString &orderId, const QString &intentId)
{
    ServiceReply refusal;
    const auto order = visibleOrder(caller, orderId, &refusal);
    if (!order)
        return refusal;
    if (order->paymentIntentId.isEmpty() || order->paymentIntentId != intentId)
        return error(409, QStringLiteral("intent_mismatch"), QStringLiteral("This payment intent does not belong to this order."));
    if (order->resultStatus)
        return answerFor(orderId);
    switch (order->state) {
    case OrderState::PendingPayment: {
        QString providerError;
        const auto status = providerFor(order->provider)->queryIntent(order->paymentIntentId, &providerError);
        return drive(*order, status, providerError, Driver::Confirm);
    }
    case OrderState::Paid:
        finalize(*order, Driver::Confirm);
        return answerFor(orderId);
    case OrderState::RefundPending:
        issueRefund(orderId);
        return answerFor(orderId);
    default:
        return answerFor(orderId);
    }
}

ServiceReply OrderService::order(const store::Principal &caller, const QString &orderId)
{
    ServiceReply refusal;
    const auto order = visibleOrder(caller, orderId, &refusal);
    if (!order)
        return refusal;
    return {200, order->toJson()};
}

ServiceReply OrderService::webhook(const QByteArray &rawBody, const QByteArray &signature)
{
    if (!webhookSignatureValid(m_settings.webhookSecret, rawBody, signature))
        return error(401, QStringLiteral("invalid_signature"), QStringLiteral("The X-Signature header does not match the body."));
    const auto parsed = parsePaymentEvent(rawBody);
    if (isError(parsed)) {
        const ApiError &refusal = std::get<ApiError>(parsed);
        return error(refusal.httpStatus, refusal.code, refusal.message);
    }
    const QString &eventId = std::get<PaymentEvent>(parsed).eventId;
    const QString &type = std::get<PaymentEvent>(parsed).type;
    const QString &intentId = std::get<PaymentEvent>(parsed).intentId;

    const auto recorded = m_payments.recordEvent(QStringLiteral("paysim"), eventId, type, intentId, rawBody);
    if (recorded == store::PaymentRepository::EventRecord::Error)
        return storeDown();
    if (recorded == store::PaymentRepository::EventRecord::AlreadyProcessed)
        return {200, {{QStringLiteral("status"), QStringLiteral("duplicate")}, {QStringLiteral("event_id"), eventId}}};

    bool ok = true;
    const auto order = m_orders.findByIntent(intentId, &ok);
    if (!ok)
        return storeDown();
    if (!order || order->provider != QLatin1String("paysim")) {
        m_payments.markEventProcessed(QStringLiteral("paysim"), eventId);
        return {200, {{QStringLiteral("status"), QStringLiteral("ignored")}, {QStringLiteral("event_id"), eventId}}};
    }
    // An event is a hint to look, never the proof: a signed event can be replayed or reordered, and a leaked secret
    // would mint them. What the provider reports for the intent when asked decides; if it cannot be asked, the
    // event stays unprocessed (503) and the provider sends it again.
    const auto askProvider = [&](std::optional<Intent> *status) -> std::optional<ServiceReply> {
        QString providerError;
        *status = providerFor(order->provider)->queryIntent(intentId, &providerError);
        if (*status)
            return std::nullopt;
        qCWarning(lcPayments) << "webhook" << eventId << "for order" << order->orderId << "not processed: the provider did not answer:" << providerError;
        return error(503, QStringLiteral("payment_status_unknown"),
                     QStringLiteral("The payment provider could not be asked about this intent; the event was not processed. Send it again."));
    };
    if (type == QLatin1String("payment_intent.succeeded")) {
        if (order->state == OrderState::PendingPayment) {
            std::optional<Intent> status;
            if (const auto unknown = askProvider(&status))
                return *unknown;
            const ServiceReply reply = drive(*order, status, QString(), Driver::Webhook);
            if (reply.status == 503 && reply.body.value(QStringLiteral("error")).toString() == QLatin1String("unavailable"))
                return reply; // not processed: the provider retries
        } else if (order->state == OrderState::Paid) {
            finalize(*order, Driver::Webhook);
        }
    } else if (type == QLatin1String("payment_intent.failed")) {
        if (order->state == OrderState::PendingPayment) {
            // Trust but verify: ask the provider for the decline reason (and in case events crossed).
            QString providerError;
            auto status = providerFor(order->provider)->queryIntent(intentId, &providerError);
            if (!status)
                status = Intent{intentId, IntentStatus::Failed, order->amountMinor, order->currency, QStringLiteral("declined")};
            const ServiceReply reply = drive(*order, status, providerError, Driver::Webhook);
            if (reply.status == 503 && reply.body.value(QStringLiteral("error")).toString() == QLatin1String("unavailable"))
                return reply; // not processed: the provider retries
        }
    } else if (order->state == OrderState::RefundPending) {
        m_payments.completeRefund(order->orderId, std::get<PaymentEvent>(parsed).refundId);
    } else if (order->state == OrderState::Confirmed) {
        // Refunded at the provider (its dashboard, a dispute), not by us: once the provider confirms it, the booking
        // is cancelled and its tickets revoked, so the door refuses them.
        std::optional<Intent> status;
        if (const auto unknown = askProvider(&status))
            return *unknown;
        if (status->status == IntentStatus::Refunded) {
            const ServiceReply cancelled = cancelRefundedAtProvider(*order, *status);
            if (cancelled.status == 503)
                return cancelled; // not processed: the provider retries
        } else {
            qCWarning(lcPayments) << "webhook" << eventId << "says order" << order->orderId << "was refunded; the provider says"
                                  << toString(status->status) << "- nothing changed";
        }
    }
    m_payments.markEventProcessed(QStringLiteral("paysim"), eventId);
    const auto after = m_orders.find(order->orderId, &ok);
    return {200, {{QStringLiteral("status"), QStringLiteral("processed")}, {QStringLiteral("event_id"), eventId},
                  {QStringLiteral("order_id"), order->orderId},
                  {QStringLiteral("state"), after ? toString(after->state) : toString(order->state)}}};
}

ServiceReply OrderService::cancelBooking(const store::Principal &caller, const QString &bookingId, const QString &reason, bool waiveFee,
                                         bool admittedOverride)
{
    if (caller.role == Role::Kiosk)
        return error(403, QStringLiteral("forbidden"), QStringLiteral("Kiosks may not cancel bookings."));
    if (caller.kind == store::Principal::Kind::Device) {
        // A till's token is not a person: it learns only of what it sold itself, and never moves money back on its
        // own word. Refunds are made in a staff session on the till, after the password or PIN was entered again,
        // so that the audit log names who gave the money back.
        bool ok = true;
        const auto booking = m_bookings.booking(bookingId, &ok);
        if (!ok)
            return storeDown();
        if (!booking || booking->value(QStringLiteral("owner")).toString() != caller.owner())
            return error(404, QStringLiteral("booking_not_found"), QStringLiteral("There is no booking with this id for you."));
        return error(403, QStringLiteral("staff_session_required"),
                     QStringLiteral("A till cancels and refunds only in a staff session: sign in on the till and enter your password or PIN again."));
    }
    const bool manager = isManager(caller.role);
    const bool hasReason = !reason.trimmed().isEmpty();
    if (waiveFee && !manager)
        return error(403, QStringLiteral("fee_waiver_not_allowed"), QStringLiteral("Only a manager may waive the cancellation fee."));
    if (waiveFee && !hasReason)
        return error(422, QStringLiteral("reason_required"), QStringLiteral("Waiving the cancellation fee needs a reason."));
    if (admittedOverride && !manager)
        return error(403, QStringLiteral("override_not_allowed"), QStringLiteral("Only a manager may refund a ticket already admitted at the door."));
    if (admittedOverride && !hasReason)
        return error(422, QStringLiteral("reason_required"), QStringLiteral("Refunding an admitted ticket needs a reason."));
    const store::CancelPolicy policy{m_settings.cancelCutoffSeconds, m_settings.cancelFeeMinor, m_settings.cancelFeePercent};
    const store::CancelOutcome outcome = m_bookings.cancel(bookingId, caller, reason, manager && hasReason, policy, waiveFee, admittedOverride);
    switch (outcome.kind) {
    case store::CancelOutcome::Kind::Admitted:
        return error(409, QStringLiteral("ticket_admitted"),
                     manager ? QStringLiteral("A ticket of this booking was already admitted at the door; refunding it needs admitted_override with a reason.")
                             : QStringLiteral("A ticket of this booking was already admitted at the door; only a manager may refund it."),
                     {{QStringLiteral("admitted_seats"), QJsonArray::fromStringList(outcome.admittedSeats)}});
    case store::CancelOutcome::Kind::NotFound:
        return error(404, QStringLiteral("booking_not_found"), QStringLiteral("There is no booking with this id."));
    case store::CancelOutcome::Kind::OutsidePolicy:
        return error(422, QStringLiteral("outside_cancel_policy"),
                     manager ? QStringLiteral("Too close to the start; a manager override needs a reason.")
                             : QStringLiteral("Too close to the start to cancel; ask a manager."),
                     {{QStringLiteral("cutoff_seconds"), m_settings.cancelCutoffSeconds}});
    case store::CancelOutcome::Kind::Error:
        return storeDown();
    case store::CancelOutcome::Kind::Cancelled:
        if (outcome.refundMinor > 0)
            issueRefund(outcome.orderId);
        break;
    case store::CancelOutcome::Kind::AlreadyCancelled:
        break;
    }
    bool ok = true;
    const auto order = m_orders.find(outcome.orderId, &ok);
    const auto refund = m_payments.refundOfOrder(outcome.orderId, &ok);
    QJsonObject body{{QStringLiteral("booking_id"), bookingId},
                     {QStringLiteral("state"), QStringLiteral("cancelled")},
                     {QStringLiteral("order_id"), outcome.orderId},
                     {QStringLiteral("order_state"), order ? toString(order->state) : QString()},
                     {QStringLiteral("fee_minor"), outcome.feeMinor},
                     {QStringLiteral("refund_minor"), outcome.refundMinor},
                     {QStringLiteral("currency"), outcome.currency}};
    if (refund)
        body.insert(QStringLiteral("refund"), QJsonObject{{QStringLiteral("amount_minor"), refund->amountMinor},
                                                          {QStringLiteral("currency"), refund->currency},
                                                          {QStringLiteral("status"), refund->status}});
    return {200, body};
}

ServiceReply OrderService::cancelRefundedAtProvider(const store::OrderRecord &order, const Intent &refunded)
{
    if (order.bookingId.isEmpty()) {
        qCCritical(lcPayments) << "order" << order.orderId << "is confirmed without a booking; its refund at the provider is not applied";
        return storeDown();
    }
    // What the provider gave back is the refund; the rest (a partial refund) stays with the venue as the fee. The
    // door's decision does not hold it up: the money is already gone.
    const qint64 refundable = qBound<qint64>(0, refunded.refundedMinor, order.cardMinor());
    const store::CancelPolicy policy{0, order.amountMinor - refundable, 0};
    const store::CancelOutcome outcome = m_bookings.cancel(order.bookingId, store::Principal::system(QStringLiteral("provider")),
                                                           QStringLiteral("refunded_at_provider"), true, policy, false, true);
    switch (outcome.kind) {
    case store::CancelOutcome::Kind::Cancelled:
        if (outcome.refundMinor > 0)
            issueRefund(outcome.orderId); // the provider answers with the refund it already made
        return {200, {}};
    case store::CancelOutcome::Kind::AlreadyCancelled:
    case store::CancelOutcome::Kind::NotFound:
        return {200, {}};
    default:
        return storeDown();
    }
}

ServiceReply OrderService::abandonOrder(const QString &holdId, const QString &orderId)
{
    bool ok = true;
    auto order = m_orders.find(orderId, &ok);
    if (!ok || !order)
        return storeDown();
    if (order->state == OrderState::PendingPayment) {
        // Cancel at the provider first: once it says "canceled" nobody can pay the intent any more, so ending the
        // order and freeing its seats cannot race a capture. A capture that came first wins the seats.
        QString providerError;
        const auto status = providerFor(order->provider)->cancelIntent(order->paymentIntentId, &providerError);
        if (!status) {
            qCWarning(lcPayments) << "cannot cancel the intent of order" << orderId << "for a hold release:" << providerError;
            return error(503, QStringLiteral("payment_status_unknown"),
                         QStringLiteral("The payment provider did not answer, so the payment may still go through; the hold is kept. Try again shortly."),
                         {{QStringLiteral("order_id"), orderId}, {QStringLiteral("state"), toString(order->state)}});
        }
        if (status->status == IntentStatus::Canceled) {
            bool dbError = false;
            m_orders.endWithoutBooking(orderId, OrderState::PendingPayment, OrderState::Cancelled, QStringLiteral("hold_released"),
                                       QStringLiteral("canceled"), 409,
                                       error(409, QStringLiteral("order_cancelled"), QStringLiteral("The hold was released before paying; the order was cancelled."),
                                             {{QStringLiteral("state"), toString(OrderState::Cancelled)}, {QStringLiteral("order_id"), orderId}})
                                           .body,
                                       &dbError);
            if (dbError)
                return storeDown();
        } else {
            drive(*order, status, providerError, Driver::HoldRelease);
        }
    } else if (order->state == OrderState::Paid) {
        finalize(*order, Driver::HoldRelease);
    }
    order = m_orders.find(orderId, &ok);
    if (!ok || !order)
        return storeDown();
    const QJsonObject state{{QStringLiteral("order_id"), orderId}, {QStringLiteral("order_state"), toString(order->state)}};
    switch (order->state) {
    case OrderState::Cancelled:
    case OrderState::Failed:
    case OrderState::Expired: {
        QJsonObject released = state;
        released.insert(QStringLiteral("hold_id"), holdId);
        released.insert(QStringLiteral("state"), QStringLiteral("released"));
        return {200, released};
    }
    case OrderState::Created:
    case OrderState::PendingPayment:
        return error(409, QStringLiteral("payment_in_progress"),
                     QStringLiteral("An order for this hold is being paid; the hold is kept until the payment is settled."), state);
    default:
        return error(409, QStringLiteral("order_paid"),
                     QStringLiteral("The order of this hold was paid before the release; its seats stay with the booking. Confirm the order."), state);
    }
}

ServiceReply OrderService::booking(const store::Principal &caller, const QString &bookingId, const QString &ref)
{
    bool ok = true;
    auto booking = ref.isEmpty() ? m_bookings.booking(bookingId, &ok) : m_bookings.bookingByRef(ref, &ok);
    if (!ok)
        return storeDown();
    if (!booking || (!isStaff(caller.role) && booking->value(QStringLiteral("owner")).toString() != caller.owner()))
        return error(404, QStringLiteral("booking_not_found"), QStringLiteral("There is no booking with this id for you."));
    booking->remove(QStringLiteral("owner"));
    return {200, *booking};
}

int OrderService::reconcileOnce(int limit)
{
    const auto list = m_orders.unsettled(m_settings.reconcileMinAgeSeconds, limit);
    if (!list)
        return -1;
    int moved = 0;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const OrderRecord &order : *list) {
        bool dbError = false;
        switch (order.state) {
        case OrderState::Created:
            // The intent was never attached (provider or server failed mid-way): nobody can pay it, since only this
            // server would know its id. Give the creating request time to finish before calling it failed.
            if (order.createdAt.secsTo(now) < m_settings.reconcileMinAgeSeconds + m_settings.providerTimeoutMs / 1000 + 1)
                continue;
            if (m_orders.endWithoutBooking(order.orderId, OrderState::Created, OrderState::Failed, QStringLiteral("intent_not_created"),
                                           QString(), 409,
                                           error(409, QStringLiteral("order_failed"), QStringLiteral("The payment could not be started."),
                                                 {{QStringLiteral("state"), toString(OrderState::Failed)}})
                                               .body,
                                           &dbError))
                ++moved;
            break;
        case OrderState::PendingPayment: {
            QString providerError;
            const auto provider = providerFor(order.provider);
            auto status = provider->queryIntent(order.paymentIntentId, &providerError);
            if (status && status->status == IntentStatus::RequiresPayment && order.expiresAt <= now) {
                // The window closed: make the intent unpayable first, then trust what the provider says it is.
                status = provider->cancelIntent(order.paymentIntentId, &providerError);
            }
            if (status && status->status != IntentStatus::RequiresPayment) {
                drive(order, status, providerError, Driver::Reconciler);
                ++moved;
            }
            break;
        }
        case OrderState::Paid:
            finalize(order, Driver::Reconciler);
            ++moved;
            break;
        case OrderState::RefundPending:
            if (issueRefund(order.orderId))
                ++moved;
            break;
        default:
            break;
        }
    }
    return moved;
}

} // namespace marquee::payments
