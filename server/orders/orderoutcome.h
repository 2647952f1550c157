// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/errorcatalogue.h"
#include "core/orderstate.h"
#include "store/orderrepository.h"
#include "store/paymentrepository.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <optional>
#include <variant>

namespace marquee::payments {

/**
 * @brief What an order path of OrderService ends in: the domain value on success, or a Refusal (a catalogue code and
 * its data). The routes alone turn either into HTTP (server/http/orderanswers.h).
 */
template <typename T>
using OrderOutcome = std::variant<T, Refusal>;

/** @brief The refusal of @p outcome, nullptr when it succeeded. */
template <typename T>
const Refusal *refusalOf(const OrderOutcome<T> &outcome)
{
    return std::get_if<Refusal>(&outcome);
}

/** @brief A card or cash order created and waiting for its payment: the stored order and the provider's intent. */
struct CreatedOrder {
    store::OrderRecord order;
    QString paymentIntentId;
};

/**
 * @brief An order confirmed: its booking as the first confirm answered it (order.confirmAnswer), which every later
 * confirm answers again, byte for byte. An order that ended without a booking answers its stored Refusal instead.
 */
struct SettledOrder {
    store::OrderRecord order;
};

/** @brief What the payment webhook did with an event. */
struct WebhookReceipt {
    enum class Kind {
        Processed, ///< the order was driven on as the provider reports it (orderId, state)
        Duplicate, ///< the event was processed before
        Ignored    ///< no order of this server pays with the event's intent
    };
    Kind kind = Kind::Processed;
    QString eventId;
    QString orderId;
    OrderState state = OrderState::Created;
};

/** @brief A booking cancelled (now or before): what was kept, what goes back and how far the refund got. */
struct Cancellation {
    QString bookingId;
    QString orderId;
    std::optional<OrderState> orderState; ///< std::nullopt when the order could not be read back
    qint64 feeMinor = 0;
    qint64 refundMinor = 0;
    QString currency;
    std::optional<store::RefundRecord> refund;
};

/** @brief A hold released after the order that froze it ended unpaid (cancelled, failed or expired). */
struct ReleasedHold {
    QString holdId;
    QString orderId;
    OrderState orderState = OrderState::Cancelled;
};

/** @brief A booking as the customer or staff may read it (BookingRepository's view, without its owner). */
struct BookingView {
    QJsonObject booking;
};

} // namespace marquee::payments
