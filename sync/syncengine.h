// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "apiclient.h"
#include "localstore.h"

#include <QDateTime>
#include <QHash>
#include <QJsonArray>
#include <QList>
#include <QObject>
#include <QRandomGenerator>
#include <QSet>
#include <QTimer>
#include <deque>
#include <functional>

namespace marquee::sync {

/**
 * @brief Replays the durable queue against the server and keeps the local copies fresh.
 *
 * - Online/offline by itself: a health probe plus the outcome of every request, with hysteresis (several
 *   failures to go offline, several successful probes to come back).
 * - Replays pending actions oldest first, one at a time per ordering group (an order or a booking), many groups
 *   in parallel; a retryable failure backs off exponentially with jitter; an answer that retrying cannot change
 *   (a 4xx other than 408/409 in progress/425/429) parks the action with its reason so it never blocks the queue.
 * - Holds, check-ins and confirms go many per request (POST /api/v1/sync/batch, at most one action per group in
 *   a batch), each with its own key and its own answer, so each still backs off, parks or finishes by itself; a
 *   batch refused as a whole applied nothing: its malformed action is sent alone (and parked by its endpoint's
 *   answer), any other refusal turns batching off.
 * - After every reconnect: refreshes the public keys, follows the revocation list and the event feed from
 *   their stored cursors (no full reload).
 *
 * Outcomes are written in batches (one SQLite transaction for all answers that arrived together); an action
 * counts as done only once that transaction committed, and a crash before it only causes a retry with the
 * same idempotency key.
 */
class SyncEngine : public QObject
{
    Q_OBJECT
    /** @brief Whether the server is reachable (with hysteresis). */
    Q_PROPERTY(bool online READ isOnline NOTIFY onlineChanged)
    /** @brief Actions waiting to be sent or retried. */
    Q_PROPERTY(int pendingCount READ pendingCount NOTIFY pendingCountChanged)
    /** @brief Actions parked as poison, waiting for a person. */
    Q_PROPERTY(int parkedCount READ parkedCount NOTIFY parkedCountChanged)
public:
    struct Options {
        int probeIntervalMs = 3000;   ///< health probe cadence
        int recoveryProbeMs = 200;    ///< next probe after a success while still offline
        int failuresToOffline = 2;    ///< consecutive failures (probe or request) before going offline
        int successesToOnline = 2;    ///< consecutive successful probes before going online
        int probeTimeoutMs = 2000;
        int backoffBaseMs = 500;
        int backoffMaxMs = 60000;
        double jitter = 0.25;         ///< ± fraction of the backoff delay
        int maxInFlight = 32;         ///< requests on the wire at once (each for a different group)
        int flushDelayMs = 5;         ///< group commit: answers arriving within this window share one fsync
        int batchSize = 512;          ///< actions read from the store at once
        bool followFeeds = true;      ///< keys, revocations and events after each reconnect
        int feedPageSize = 500;
        int feedIntervalMs = 10000;   ///< feed poll cadence while online
        /**
         * @brief Actions per POST /api/v1/sync/batch (holds, check-ins, confirms; one per group at a time);
         * 1 or less sends every action on its own endpoint.
         */
        int batchActions = 25;
        /**
         * @brief Batch requests on the wire at once. Each is applied by one server thread; more, smaller batches
         * keep more of a busy server's threads working (25 × 16 replayed 3,000 holds 3.5× faster than 100 × 1).
         */
        int batchesInFlight = 16;
        int batchMaxBytes = 48 * 1024; ///< payload bytes per batch at most (the server takes 64 KiB bodies)
    };

    SyncEngine(LocalStore &store, ApiClient &api, QObject *parent = nullptr);
    SyncEngine(LocalStore &store, ApiClient &api, const Options &options, QObject *parent = nullptr);
    ~SyncEngine() override;

    /** @brief Start probing and replaying. */
    void start();
    /** @brief Stop timers; in-flight answers are still recorded. */
    void stop();

    bool isOnline() const { return m_online; }
    int pendingCount() const { return m_pendingCount; }
    int parkedCount() const { return m_parkedCount; }
    /** @brief Actions sent and not yet recorded: on the wire, or answered and waiting for their group commit. */
    int inFlight() const { return m_inFlight.size(); }

    /** @brief Queue an action durably and replay it as soon as possible. */
    std::optional<qint64> enqueue(const NewAction &action);
    /**
     * @brief Journal a payment the terminal approved and queue its confirm, atomically: the confirm is then
     * replayed until the server answers (booking → "confirmed", hold lost → "refund_due").
     */
    std::optional<qint64> queueConfirm(const QString &orderId, const QString &paymentIntentId, qint64 amountMinor, const QString &currency,
                                       const QString &terminalResult = QStringLiteral("approved"));
    /**
     * @brief Journal a card payment before the terminal is asked (state "awaiting_terminal"): a crash while the
     * card is in the terminal is then found by recoverInterruptedPayments() on the next start.
     */
    bool journalPaymentAttempt(const QString &orderId, const QString &paymentIntentId, qint64 amountMinor, const QString &currency);
    /**
     * @brief After a restart: queue a confirm for every payment still "awaiting_terminal" (terminal result
     * "unknown"); the server answers from the provider. Returns how many were queued.
     */
    int recoverInterruptedPayments();
    /** @brief Put a parked action back in the queue. */
    bool retryParked(qint64 actionId);
    /** @brief Replay now (for example after enqueueing). */
    void kick();
    /** @brief Follow the feeds now (keys, then the venue's delegations, revocations, events). */
    void refreshFeeds();

    /** @brief The backoff before attempt number @p attempts + 1, with jitter. */
    int backoffMs(int attempts);

Q_SIGNALS:
    void onlineChanged(bool online);
    void pendingCountChanged(int count);
    void parkedCountChanged(int count);
    /** @brief The server gave a definite answer to an action (success or a final refusal). */
    void actionFinished(qint64 actionId, const QString &kind, int status, const QByteArray &body);
    void actionParked(qint64 actionId, const QString &kind, const QString &reason);
    /** @brief A confirm ended: state is "confirmed", "refund_due" or "failed". */
    void paymentSettled(const QString &paymentIntentId, const QString &state);
    /** @brief New events were stored from the feed. */
    void eventsReceived(int newEvents);
    /** @brief Keys, revocations and events are all caught up. */
    void feedsCaughtUp();
    /** @brief Online and nothing left to replay right now. */
    void drained();

private:
    struct Outcome {
        PendingAction action;
        ApiResult result;
    };

    void probe();
    void noteSuccess(bool fromProbe);
    void noteFailure();
    void setOnline(bool online);
    void pump();
    void dispatch(const PendingAction &action);
    void dispatchBatch(const QList<PendingAction> &actions, const QJsonArray &items);
    void onAnswer(const PendingAction &action, const ApiResult &result);
    void onBatchAnswer(const QList<PendingAction> &actions, const ApiResult &result);
    /** @brief Forget that @p action was sent (the server applied nothing of it): it goes out again from the queue. */
    void unsend(const PendingAction &action);
    void outcomesArrived();
    void flushOutcomes();
    bool applyOutcome(const Outcome &outcome, QList<std::function<void()>> &notes);
    void refreshCounts();
    bool approvedAtTerminal(const QString &paymentIntentId);
    void scheduleNextPump();
    /** @brief How a feed's page is asked for (ApiClient::revocations, ApiClient::events). */
    using FeedRequest = void (ApiClient::*)(const QString &after, int limit, ApiClient::Callback callback);
    /**
     * @brief Page through the server feed @p feed (its cursor and its page's array share the name) from the stored
     * cursor until it is caught up: each page's items go to @p keep with the next cursor, which stores both.
     */
    void followFeed(const QString &feed, FeedRequest request, std::function<void(const QJsonArray &items, const QString &next)> keep);
    void followRevocations();
    void followEvents();
    void feedStepDone();
    /** @brief GET /api/v1/delegations: keep those this venue's cached keys signed (the door's cache). */
    void refreshDelegations();

    LocalStore &m_store;
    ApiClient &m_api;
    Options m_options;
    bool m_running = false;
    bool m_online = false;
    int m_failures = 0;
    int m_successes = 0;
    bool m_probing = false;
    int m_pendingCount = 0;
    int m_parkedCount = 0;

    std::deque<PendingAction> m_ready;
    QSet<qint64> m_inFlight;   // sent, or answered but not yet committed
    int m_onWire = 0;          // sent and not yet answered (what maxInFlight limits)
    int m_batchesOnWire = 0;   // batch requests among them (what batchesInFlight limits)
    bool m_batchRefused = false; // the server does not take batches (older server, other role): single requests only
    QSet<qint64> m_sendAlone;  // actions a batch was refused for: sent on their own endpoint, which parks them
    bool m_storeChanged = true; // the queue may hold rows m_ready has not seen
    QSet<QString> m_busyGroups;
    QList<Outcome> m_outcomes;
    bool m_pumpScheduled = false;
    int m_feedSteps = 0;
    bool m_feedsRunning = false;

    QTimer m_probeTimer;
    QTimer m_retryTimer;
    QTimer m_feedTimer;
    QTimer m_flushTimer;
    QRandomGenerator m_random;
};

} // namespace marquee::sync
