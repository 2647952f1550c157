// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/errorcatalogue.h"

#include "core/orderstate.h"
#include "store/authrepository.h"
#include "store/database.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>
#include <optional>

namespace marquee::store {

/**
 * @brief What every later confirm of an order answers, decided once and stored with the order (its decision and
 * data, never HTTP: the routes render it through the catalogue). Either the booking confirm made, or the refusal the
 * order ended in without one.
 */
struct ConfirmAnswer{
    std::optional<Refusal> refusal; ///< std::nullopt: confirmed, and booking is what the first confirm answered
    QJsonObject booking; ///< booking_id, booking_ref, order_id, show_id, seats, amount, state, tickets
};

/** @brief One order as stored. */
struct OrderRecord {
    QString orderId;
    QString holdId;
    qint64 showId = 0;
    QString owner;
    QString channel;
    QStringList seatIds;
    qint64 amountMinor = 0;
    QString currency;
    OrderState state = OrderState::Created;
    QString provider;
    QString paymentIntentId;
    QString failureReason;
    QString bookingId;
    std::optional<ConfirmAnswer> confirmAnswer; ///< std::nullopt while confirm has no stored answer
    QDateTime createdAt;
    QDateTime updatedAt;
    QDateTime expiresAt;
    qint64 cashMinor = 0;      ///< paid in cash: all of a cash order, part of a split one, 0 for card
    qint64 tenderedMinor = -1; ///< cash handed over (-1: no cash part)
    qint64 changeMinor = 0;

    /** @brief What the card provider is asked for: the whole amount, or the rest of a split payment. */
    qint64 cardMinor() const { return provider == QLatin1String("cash") ? 0 : amountMinor - cashMinor; }
    /** @brief How it was paid, as the API says it: "cash", "card" or "split" (cash and card). */
    QString paymentMethod() const;
    /** @brief paymentMethod() of an order paid through @p provider with @p cashMinor of it in cash. */
    static QString paymentMethodOf(const QString &provider, qint64 cashMinor);
    /** @brief The order as GET /api/v1/orders/{id} shows it. */
    QJsonObject toJson() const;
};

/**
 * @brief Cash at a till: for a split payment the part paid in cash (the rest goes to the card provider), and
 * what the customer handed over (absent: exactly the cash part). Change due = tendered − cash part.
 */
struct CashTender {
    qint64 splitCashMinor = 0;
    std::optional<qint64> tenderedMinor;
};

/** @brief How to reach the customer, already normalised (core/customercontact); empty when not given. */
struct CustomerContact {
    QString email;
    QString phone;
};

/** @brief What a new order needs. */
struct NewOrder {
    QString orderId;
    QString holdId;
    QString owner;
    QString channel;   ///< kiosk, till or api
    qint64 deviceId = 0;
    qint64 staffId = 0;
    QString provider;  ///< paysim or cash
    CashTender tender;
    CustomerContact contact; ///< copied onto the booking (migration 010), where the till finds it
    int paymentWindowSeconds = 900;
    int graceSeconds = 120; ///< seats stay frozen this long past the payment window, for the reconciler
    /** @brief A staff session selling (a till or desk sign-in): the sale's audit row is written with the order. */
    std::optional<Principal> staff;
    /** @brief A sale a device already made under its lease (LeaseService): booked even when it is reported after
     *  the show started, since the seats were the device's and the customer has the ticket. */
    bool soldUnderLease = false;
};

/**
 * @brief The outcome of creating an order: the record, or why not (a catalogue code; the caller turns it into the
 * wire) with the data the refusal names in @p extra.
 */
struct CreateOrderOutcome {
    bool ok = false;        ///< false on a database error (nothing changed)
    std::optional<OrderRecord> order;
    std::optional<ErrorCode> refusal;
    QJsonObject extra;
};

/**
 * @brief Orders and their state transitions. Every transition is checked against core/orderstate's table and
 * applied with a conditional UPDATE (`WHERE state = from`), with an outbox event in the same transaction.
 */
class OrderRepository
{
public:
    explicit OrderRepository(const Database &database);

    /**
     * @brief Create an order for a live hold of @p order.owner and freeze the hold: in one transaction the hold's
     * seats get a TTL past the payment window (only where still held by this hold and not expired; all or
     * nothing), and the order is stored in state CREATED.
     */
    CreateOrderOutcome create(const NewOrder &order);
    /** @brief CREATED → PENDING_PAYMENT with the provider's intent (and its payments row). */
    bool attachIntent(const QString &orderId, const QString &intentId, const QString &provider, qint64 amountMinor,
                      const QString &currency);
    std::optional<OrderRecord> find(const QString &orderId, bool *ok);
    std::optional<OrderRecord> findByIntent(const QString &intentId, bool *ok);
    /**
     * @brief PENDING_PAYMENT → PAID, recording the capture on the payments row. True when this call moved it
     * (false also when it was not PENDING_PAYMENT any more; see @p dbError).
     */
    bool markPaid(const QString &orderId, bool *dbError);
    /**
     * @brief End an order without a booking (→ FAILED, EXPIRED or CANCELLED from @p from): the hold's seats that are
     * still held by it are released in the same transaction, and @p answer (its decision and data) stored as the
     * answer of a later confirm. False when the order was not in @p from (nothing changed) or on error.
     */
    bool endWithoutBooking(const QString &orderId, OrderState from, OrderState to, const QString &reason,
                           const QString &paymentStatus, const Refusal &answer, bool *dbError, bool releaseSeats = true);
    /**
     * @brief PAID → REFUND_PENDING because the hold was lost: releases what is left of the hold, records a pending
     * refund of the full amount and stores @p answer (hold_lost) as the answer of later confirms. False when the order
     * was not PAID. @p requestedBy is stored as the refund's requested_by: which part of the server found the loss
     * ("system:confirm", "system:webhook", "system:reconciler", "system:hold_release"; see OrderService).
     */
    bool markHoldLost(const QString &orderId, const QString &requestedBy, const Refusal &answer, bool *dbError);
    /** @brief Orders not settled (CREATED, PENDING_PAYMENT, PAID, REFUND_PENDING) last changed before @p ageSeconds ago. */
    std::optional<QList<OrderRecord>> unsettled(int ageSeconds, int limit);
    /**
     * @brief For the manager desk: the unsettled orders the reconciler still has open past their bound — CREATED and
     * PAID older than @p minAgeSeconds, PENDING_PAYMENT past the payment window, every REFUND_PENDING — oldest change
     * first: each as OrderRecord::toJson() plus owner, waiting_for, age_seconds and the refund's request time and
     * reason. Served by the orders_unsettled partial index (migration 003).
     */
    std::optional<QJsonArray> awaitingReconciliation(int minAgeSeconds, int limit);
    /**
     * @brief For the manager desk (GET /api/v1/reports/refunds): every refund asked for in [@p from, @p to), newest
     * first, at most @p limit — staff cancellations and overrides as well as the server's own (a payment that landed
     * after its hold was lost) — each with its order and booking reference, show, amount and payment method, kind,
     * reason, status, and who asked from which device where known (docs/api.md). Served by the refunds_created index
     * (migration 006); the joins are by primary key. @p truncated is set when more rows were in the range. The rows
     * come as the bytes of a compact JSON array.
     */
    std::optional<QByteArray> refunds(const QDateTime &from, const QDateTime &to, int limit, bool *truncated);

    /** @brief Apply one transition inside the caller's transaction (conditional UPDATE + outbox event). */
    static bool transition(QSqlDatabase &db, const QString &orderId, OrderState from, OrderState to, const QString &reason);
    /** @brief Write an outbox event inside the caller's transaction. */
    static bool writeEvent(QSqlDatabase &db, const QString &type, const QString &aggregateId, const QJsonObject &payload);
    /** @brief Lock the order row and read its state inside the caller's transaction. */
    static std::optional<OrderState> lockState(QSqlDatabase &db, const QString &orderId);
    /** @brief Free the seats still held by @p holdId (canonical lock order) and mark the hold released; the seats
     *  it freed are appended to @p freedSeats (to tell SeatWrites once the caller has committed). */
    static bool releaseHoldSeats(QSqlDatabase &db, const QString &holdId, qint64 showId, const QStringList &seatIds,
                                 const QString &reason, QStringList *freedSeats = nullptr);

    /**
     * @brief Store @p answer as what every later confirm of @p orderId gets (inside the caller's transaction), and
     * @p bookingId with it when not empty. A refusal is stored as its decision and data; its sentence takes no
     * arguments (the catalogue renders it again on every replay). False on a database error, or for a refusal that is
     * not one an order ends in.
     */
    static bool storeAnswer(
        QSqlDatabase &db, const QString &orderId, const ConfirmAnswer &answer, const QString &bookingId = {});

private:
    std::optional<OrderRecord> findWhere(const QString &column, const QString &value, bool *ok);
    const Database &m_database;
};

} // namespace marquee::store
