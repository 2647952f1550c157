// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "apiclient.h"
#include "localstore.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QObject>

namespace marquee::sync {

/** @brief What reconciliation found: one line per printed ticket and per terminal-approved payment. */
struct ReconciliationReport {
    struct TicketLine {
        QString ticketId;
        QString bookingRef;
        qint64 showId = 0;
        QString seatId;
        QString state;  ///< "confirmed", "voided" or "unknown"
        QString reason; ///< why, in words for the manager
    };
    struct PaymentLine {
        QString intentId;
        QString orderId;
        qint64 amountMinor = 0;
        QString currency;
        QString bookingRef;
        QString state;  ///< "confirmed", "refund_due", "pending" (confirm still queued or undecided) or "unknown"
        QString reason;
    };

    QDateTime startedAt;
    QDateTime finishedAt;
    bool complete = true; ///< false when some lookups could not reach the server (those lines say "unknown")
    QList<TicketLine> tickets;
    QList<PaymentLine> payments;

    int count(const QString &ticketState) const;
    int paymentCount(const QString &paymentState) const;
    /** @brief The report as JSON (stored in the LocalStore for the manager role). */
    QJsonObject toJson() const;
    /**
     * @brief What the manager desk sees of a stored report (toJson()), sent with the device heartbeat:
     * {finished_at, complete, tickets: {confirmed, voided, unknown}, payments: {confirmed, refund_due, pending,
     * unknown}, problems: the first @p maxProblems lines that are not confirmed, problems_total}.
     */
    static QJsonObject fleetSummary(const QJsonObject &report, int maxProblems = 50);
};

/**
 * @brief After a reconnect, compares the ticket and payment journals with the server.
 *
 * Each printed ticket becomes confirmed (its booking is confirmed and lists it), voided (revoked, cancelled,
 * refunded) or unknown (the server could not say). Each payment the terminal approved becomes a confirmed
 * booking or a refund due; a payment whose confirm is still queued stays pending. The journals are updated,
 * and the report is stored and returned.
 */
class Reconciler : public QObject
{
    Q_OBJECT
public:
    Reconciler(LocalStore &store, ApiClient &api, QObject *parent = nullptr);

    /** @brief Start a run; finished() follows. A run already going is not started twice. */
    void run();
    /** @brief Run and wait in a local event loop. */
    ReconciliationReport runBlocking();
    bool isRunning() const { return m_running; }

Q_SIGNALS:
    void finished(const marquee::sync::ReconciliationReport &report);

private:
    void checkTicket(int index);
    void checkPayment(int index);
    void next();
    void finish();

    LocalStore &m_store;
    ApiClient &m_api;
    bool m_running = false;
    ReconciliationReport m_report;
    QList<TicketRecord> m_tickets;
    QList<PaymentRecord> m_payments;
    int m_ticketIndex = 0;
    int m_paymentIndex = 0;
    QHash<QString, ApiResult> m_bookingCache; // one lookup per booking, not per ticket
};

} // namespace marquee::sync
