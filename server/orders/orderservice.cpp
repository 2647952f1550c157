// SPDX-License-Identifier: AGPL-3.0-or-later
#include "orders/orderservice.h"
#include "orders/paymentwebhook.h"
#include "logging.h"

#include "core/isotime.h"
#include "store/authrepository.h"

#include <QDateTime>
#include <QLoggingCategory>
#include <QUuid>


namespace marquee::payments {

using store::OrderRecord;

namespace {
Refusal storeDown()
{
    return {ErrorCode::OrderStoreUnavailable, {}, {}};
}
/** @brief What a refusal about @p orderId in @p state names: the order and where it stands. */
QJsonObject orderData(const QString &orderId, OrderState state, const QString &stateKey = QStringLiteral("state"))
{
    return {{stateKey, toString(state)}, {QStringLiteral("order_id"), orderId}};
}
bool isStoreDown(const Refusal *refusal)
{
    return refusal && refusal->code == ErrorCode::OrderStoreUnavailable;
}
/** @brief The refusal of an order that ended in @p state without a stored answer. */
ErrorCode endedIn(OrderState state)
{
    switch (state) {
    case OrderState::Confirmed:
        return ErrorCode::OrderIsConfirmed;
    case OrderState::Failed:
        return ErrorCode::OrderIsFailed;
    case OrderState::Expired:
        return ErrorCode::OrderIsExpired;
    case OrderState::Cancelled:
        return ErrorCode::OrderIsCancelled;
    case OrderState::RefundPending:
        return ErrorCode::OrderIsRefundPending;
    default:
        return ErrorCode::OrderIsRefunded;
    }
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

OrderOutcome<CreatedOrder> OrderService::createOrder(const store::Principal &caller, const QString &holdId, bool cash, const store::CashTender &tender,
                                                     const store::CustomerContact &contact)
{
    if (cash && caller.role == Role::Kiosk)
        return Refusal{ErrorCode::PaymentMethodNotAllowed, {}, {}};
    std::shared_ptr<PaymentProvider> provider = providerFor(cash ? QStringLiteral("cash") : QStringLiteral("paysim"));
    if (!cash && !static_cast<PaySimProvider *>(provider.get())->isConfigured())
        return Refusal{ErrorCode::CardProviderNotConfigured, {}, {}};

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
        return Refusal{*created.refusal, created.extra, {}};
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
                                   QString(), {ErrorCode::PaymentNotStarted, {}, {}}, &dbError, false);
        return Refusal{ErrorCode::PaymentProviderDown, {}, {}};
    }
    if (!m_orders.attachIntent(order.orderId, intent->id, provider->name(), providerAmount, order.currency))
        return storeDown();
    return CreatedOrder{order, intent->id};
}

OrderOutcome<SettledOrder> OrderService::answerFor(const QString &orderId)
{
    bool ok = true;
    const auto order = m_orders.find(orderId, &ok);
    if (!ok || !order)
        return storeDown();
    if (const auto &answer = order->confirmAnswer) {
        if (answer->refusal)
            return *answer->refusal;
        return SettledOrder{*order};
    }
    const QJsonObject state = orderData(orderId, order->state);
    switch (order->state) {
    case OrderState::Created:
    case OrderState::PendingPayment:
        return Refusal{ErrorCode::PaymentPending, state, {}};
    case OrderState::Paid:
        return Refusal{ErrorCode::ConfirmInProgress, state, {}};
    default:
        return Refusal{endedIn(order->state), state, {}};
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
        m_orders.markHoldLost(order.orderId, systemActor(driver), {ErrorCode::HoldLost, orderData(order.orderId, OrderState::RefundPending), {}},
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

OrderOutcome<SettledOrder> OrderService::drive(const OrderRecord &order, const std::optional<Intent> &status, const QString &providerError,
                                               Driver driver)
{
    const QJsonObject state = orderData(order.orderId, order.state);
    if (!status) {
        qCWarning(lcPayments) << "payment status of order" << order.orderId << "unknown:" << providerError;
        return Refusal{ErrorCode::PaymentStatusUnknown, state, {}};
    }
    if (order.provider != QLatin1String("cash") && status->status == IntentStatus::Succeeded
        && (status->amountMinor != order.cardMinor() || status->currency != order.currency)) {
        // Fail closed: money that does not match the order is neither booked nor silently accepted.
        qCCritical(lcPayments) << "provider reports" << status->amountMinor << status->currency << "for order" << order.orderId
                               << "of" << order.amountMinor << order.currency;
        return Refusal{ErrorCode::PaymentMismatch, state, {}};
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
        QJsonObject declined = orderData(order.orderId, OrderState::Failed);
        declined.insert(QStringLiteral("reason"), reason);
        m_orders.endWithoutBooking(order.orderId, OrderState::PendingPayment, OrderState::Failed, reason, QStringLiteral("failed"),
                                   {ErrorCode::PaymentFailed, declined, {}}, &dbError);
        break;
    }
    case IntentStatus::Canceled:
        m_orders.endWithoutBooking(order.orderId, OrderState::PendingPayment, OrderState::Expired, QStringLiteral("payment_window_closed"),
                                   QStringLiteral("canceled"), {ErrorCode::OrderExpired, orderData(order.orderId, OrderState::Expired), {}}, &dbError);
        break;
    case IntentStatus::RequiresPayment:
        break;
    case IntentStatus::Refunded:
        qCCritical(lcPayments) << "provider reports a refund for unsettled order" << order.orderId;
        return Refusal{ErrorCode::PaymentInconsistent, state, {}};
    }
    if (dbError)
        return storeDown();
    return answerFor(order.orderId);
}

OrderOutcome<OrderRecord> OrderService::visibleOrder(const store::Principal &caller, const QString &orderId)
{
    bool ok = true;
    auto order = m_orders.find(orderId, &ok);
    if (!ok)
        return storeDown();
    // Someone else's order is answered as if it did not exist: its id tells nothing.
    if (!order || (order->owner != caller.owner() && !isManager(caller.role)))
        return Refusal{ErrorCode::OrderNotFound, {}, {}};
    return *order;
}

OrderOutcome<SettledOrder> OrderService::confirm(const store::Principal &caller, const QString &orderId, const QString &intentId)
{
    const auto visible = visibleOrder(caller, orderId);
    if (const Refusal *refusal = refusalOf(visible))
        return *refusal;
    const OrderRecord *order = &std::get<OrderRecord>(visible);
    if (order->paymentIntentId.isEmpty() || order->paymentIntentId != intentId)
        return Refusal{ErrorCode::IntentMismatch, {}, {}};
    if (order->confirmAnswer)
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

OrderOutcome<OrderRecord> OrderService::order(const store::Principal &caller, const QString &orderId)
{
    return visibleOrder(caller, orderId);
}

OrderOutcome<WebhookReceipt> OrderService::webhook(const PaymentEvent &event, const QByteArray &rawBody)
{
    const QString &eventId = event.eventId;
    const QString &type = event.type;
    const QString &intentId = event.intentId;

    const auto recorded = m_payments.recordEvent(QStringLiteral("paysim"), eventId, type, intentId, rawBody);
    if (recorded == store::PaymentRepository::EventRecord::Error)
        return storeDown();
    if (recorded == store::PaymentRepository::EventRecord::AlreadyProcessed)
        return WebhookReceipt{WebhookReceipt::Kind::Duplicate, eventId, {}, {}};

    bool ok = true;
    const auto order = m_orders.findByIntent(intentId, &ok);
    if (!ok)
        return storeDown();
    if (!order || order->provider != QLatin1String("paysim")) {
        m_payments.markEventProcessed(QStringLiteral("paysim"), eventId);
        return WebhookReceipt{WebhookReceipt::Kind::Ignored, eventId, {}, {}};
    }
    // An event is a hint to look, never the proof: a signed event can be replayed or reordered, and a leaked secret
    // would mint them. What the provider reports for the intent when asked decides; if it cannot be asked, the
    // event stays unprocessed (EventNotProcessed) and the provider sends it again.
    const auto askProvider = [&](std::optional<Intent> *status) -> std::optional<Refusal> {
        QString providerError;
        *status = providerFor(order->provider)->queryIntent(intentId, &providerError);
        if (*status)
            return std::nullopt;
        qCWarning(lcPayments) << "webhook" << eventId << "for order" << order->orderId << "not processed: the provider did not answer:" << providerError;
        return Refusal{ErrorCode::EventNotProcessed, {}, {}};
    };
    if (type == QLatin1String("payment_intent.succeeded")) {
        if (order->state == OrderState::PendingPayment) {
            std::optional<Intent> status;
            if (const auto unknown = askProvider(&status))
                return *unknown;
            const auto driven = drive(*order, status, QString(), Driver::Webhook);
            if (isStoreDown(refusalOf(driven)))
                return storeDown(); // not processed: the provider retries
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
            const auto driven = drive(*order, status, providerError, Driver::Webhook);
            if (isStoreDown(refusalOf(driven)))
                return storeDown(); // not processed: the provider retries
        }
    } else if (order->state == OrderState::RefundPending) {
        m_payments.completeRefund(order->orderId, event.refundId);
    } else if (order->state == OrderState::Confirmed) {
        // Refunded at the provider (its dashboard, a dispute), not by us: once the provider confirms it, the booking
        // is cancelled and its tickets revoked, so the door refuses them.
        std::optional<Intent> status;
        if (const auto unknown = askProvider(&status))
            return *unknown;
        if (status->status == IntentStatus::Refunded) {
            if (!cancelRefundedAtProvider(*order, *status))
                return storeDown(); // not processed: the provider retries
        } else {
            qCWarning(lcPayments) << "webhook" << eventId << "says order" << order->orderId << "was refunded; the provider says"
                                  << toString(status->status) << "- nothing changed";
        }
    }
    m_payments.markEventProcessed(QStringLiteral("paysim"), eventId);
    const auto after = m_orders.find(order->orderId, &ok);
    return WebhookReceipt{WebhookReceipt::Kind::Processed, eventId, order->orderId, after ? after->state : order->state};
}

OrderOutcome<Cancellation> OrderService::cancelBooking(const store::Principal &caller, const QString &bookingId, const QString &reason,
                                                       bool waiveFee, bool admittedOverride)
{
    if (caller.role == Role::Kiosk)
        return Refusal{ErrorCode::KioskMayNotCancel, {}, {}};
    if (caller.kind == store::Principal::Kind::Device) {
        // A till's token is not a person: it learns only of what it sold itself, and never moves money back on its
        // own word. Refunds are made in a staff session on the till, after the password or PIN was entered again,
        // so that the audit log names who gave the money back.
        bool ok = true;
        const auto booking = m_bookings.booking(bookingId, &ok);
        if (!ok)
            return storeDown();
        if (!booking || booking->value(QStringLiteral("owner")).toString() != caller.owner())
            return Refusal{ErrorCode::BookingNotFound, {}, {}};
        return Refusal{ErrorCode::StaffSessionRequired, {}, {}};
    }
    const bool manager = isManager(caller.role);
    const bool hasReason = !reason.trimmed().isEmpty();
    if (waiveFee && !manager)
        return Refusal{ErrorCode::FeeWaiverNotAllowed, {}, {}};
    if (waiveFee && !hasReason)
        return Refusal{ErrorCode::FeeWaiverNeedsReason, {}, {}};
    if (admittedOverride && !manager)
        return Refusal{ErrorCode::OverrideNotAllowed, {}, {}};
    if (admittedOverride && !hasReason)
        return Refusal{ErrorCode::OverrideNeedsReason, {}, {}};
    const store::CancelPolicy policy{m_settings.cancelCutoffSeconds, m_settings.cancelFeeMinor, m_settings.cancelFeePercent};
    const store::CancelOutcome outcome = m_bookings.cancel(bookingId, caller, reason, manager && hasReason, policy, waiveFee, admittedOverride);
    switch (outcome.kind) {
    case store::CancelOutcome::Kind::Admitted:
        return Refusal{manager ? ErrorCode::TicketAdmittedNeedsOverride : ErrorCode::TicketAdmitted,
                       {{QStringLiteral("admitted_seats"), QJsonArray::fromStringList(outcome.admittedSeats)}}, {}};
    case store::CancelOutcome::Kind::NotFound:
        return Refusal{ErrorCode::BookingNotFoundToCancel, {}, {}};
    case store::CancelOutcome::Kind::OutsidePolicy:
        return Refusal{manager ? ErrorCode::OutsideCancelPolicyNeedsReason : ErrorCode::OutsideCancelPolicy,
                       {{QStringLiteral("cutoff_seconds"), m_settings.cancelCutoffSeconds}}, {}};
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
    return Cancellation{bookingId, outcome.orderId, order ? std::optional<OrderState>(order->state) : std::nullopt, outcome.feeMinor,
                        outcome.refundMinor, outcome.currency, refund};
}

bool OrderService::cancelRefundedAtProvider(const store::OrderRecord &order, const Intent &refunded)
{
    if (order.bookingId.isEmpty()) {
        qCCritical(lcPayments) << "order" << order.orderId << "is confirmed without a booking; its refund at the provider is not applied";
        return false;
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
        return true;
    case store::CancelOutcome::Kind::AlreadyCancelled:
    case store::CancelOutcome::Kind::NotFound:
        return true;
    default:
        return false;
    }
}

OrderOutcome<ReleasedHold> OrderService::abandonOrder(const QString &holdId, const QString &orderId)
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
            return Refusal{ErrorCode::ReleaseStatusUnknown, orderData(orderId, order->state), {}};
        }
        if (status->status == IntentStatus::Canceled) {
            bool dbError = false;
            m_orders.endWithoutBooking(orderId, OrderState::PendingPayment, OrderState::Cancelled, QStringLiteral("hold_released"),
                                       QStringLiteral("canceled"), {ErrorCode::OrderCancelled, orderData(orderId, OrderState::Cancelled), {}}, &dbError);
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
    const QJsonObject state = orderData(orderId, order->state, QStringLiteral("order_state"));
    switch (order->state) {
    case OrderState::Cancelled:
    case OrderState::Failed:
    case OrderState::Expired:
        return ReleasedHold{holdId, orderId, order->state};
    case OrderState::Created:
    case OrderState::PendingPayment:
        return Refusal{ErrorCode::PaymentInProgress, state, {}};
    default:
        return Refusal{ErrorCode::OrderPaid, state, {}};
    }
}

OrderOutcome<BookingView> OrderService::booking(const store::Principal &caller, const QString &bookingId, const QString &ref)
{
    bool ok = true;
    auto booking = ref.isEmpty() ? m_bookings.booking(bookingId, &ok) : m_bookings.bookingByRef(ref, &ok);
    if (!ok)
        return storeDown();
    if (!booking || (!isStaff(caller.role) && booking->value(QStringLiteral("owner")).toString() != caller.owner()))
        return Refusal{ErrorCode::BookingNotFound, {}, {}};
    booking->remove(QStringLiteral("owner"));
    return BookingView{*booking};
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
                                           QString(), {ErrorCode::OrderFailed, {{QStringLiteral("state"), toString(OrderState::Failed)}}, {}},
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
