// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QList>
#include <QString>
#include <optional>

namespace marquee {

/**
 * @brief The life of an order, from a frozen hold to money and tickets (or back).
 *
 * CREATED → PENDING_PAYMENT → PAID → CONFIRMED is the happy path. FAILED, EXPIRED, CANCELLED and REFUNDED end an
 * order; REFUND_PENDING means money was taken and must go back (hold lost, or a confirmed booking was cancelled).
 * Every legal move is listed in orderTransitions(); nothing else may change an order's state.
 */
enum class OrderState { Created, PendingPayment, Paid, Confirmed, Failed, Expired, Cancelled, RefundPending, Refunded };

/** @brief The wire and database spelling: "CREATED", "PENDING_PAYMENT", ... */
QString toString(OrderState state);
std::optional<OrderState> orderStateFromString(const QString &text);

/** @brief One legal move of the order state machine. */
struct OrderTransition {
    OrderState from;
    OrderState to;
};

/** @brief The single table of legal transitions. */
const QList<OrderTransition> &orderTransitions();

/** @brief True when @p from → @p to is in orderTransitions(). */
bool canTransition(OrderState from, OrderState to);

/**
 * @brief Check a transition: the new state when legal; std::nullopt (and a warning in marquee.orders naming
 * @p orderId) when it is not.
 */
std::optional<OrderState> checkTransition(OrderState from, OrderState to, const QString &orderId = {});

/** @brief True for states that no job moves on by itself: CONFIRMED, FAILED, EXPIRED, CANCELLED, REFUNDED. */
bool isSettled(OrderState state);

/** @brief True for states with no way out at all (FAILED, EXPIRED, CANCELLED, REFUNDED). */
bool isFinal(OrderState state);

} // namespace marquee
