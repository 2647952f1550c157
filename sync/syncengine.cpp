// SPDX-License-Identifier: AGPL-3.0-or-later
#include "syncengine.h"
#include "synclog.h"

#include "core/ticketcodec.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QUuid>
#include <cmath>

namespace marquee::sync {

namespace {
/**
 * The action as an item of POST /api/v1/sync/batch ({kind, idempotency_key, payload}); nothing for an action the
 * batch does not take (other kinds, no key), which goes to its own endpoint.
 */
std::optional<QJsonObject> batchItem(const PendingAction &action)
{
    if (action.method != QLatin1String("POST") || action.idempotencyKey.isEmpty())
        return std::nullopt;
    QJsonObject payload = action.body;
    if (action.kind == QLatin1String("hold")) {
        static const QRegularExpression holdPath(QStringLiteral("^/api/v1/shows/(\\d+)/hold$"));
        const QRegularExpressionMatch match = holdPath.match(action.path);
        if (!match.hasMatch())
            return std::nullopt;
        payload.insert(QStringLiteral("show_id"), match.captured(1).toLongLong());
    } else if (action.kind == QLatin1String("confirm_order")) {
        static const QRegularExpression confirmPath(QStringLiteral("^/api/v1/orders/([^/?]+)/confirm$"));
        const QRegularExpressionMatch match = confirmPath.match(action.path);
        if (!match.hasMatch())
            return std::nullopt;
        payload.insert(QStringLiteral("order_id"), match.captured(1));
    } else if (action.kind != QLatin1String("checkin") || action.path != QLatin1String("/api/v1/checkin")) {
        return std::nullopt;
    }
    return QJsonObject{{QStringLiteral("kind"), action.kind}, {QStringLiteral("idempotency_key"), action.idempotencyKey}, {QStringLiteral("payload"), payload}};
}

/** @brief One result of a batch answer as the answer of its own request; nothing when it is unreadable. */
std::optional<ApiResult> batchResult(const QJsonValue &value)
{
    const QJsonObject object = value.toObject();
    ApiResult result;
    result.status = object.value(QStringLiteral("status")).toInt();
    if (result.status < 100 || result.status > 599 || !object.value(QStringLiteral("body")).isObject())
        return std::nullopt;
    result.body = QJsonDocument(object.value(QStringLiteral("body")).toObject()).toJson(QJsonDocument::Compact);
    if (result.status >= 200 && result.status < 300) {
        result.kind = ApiResult::Kind::Success;
    } else {
        result.kind = ApiResult::Kind::HttpError;
        result.error = ApiError::fromBody(result.status, result.body);
    }
    return result;
}
} // namespace

SyncEngine::SyncEngine(LocalStore &store, ApiClient &api, QObject *parent)
    : SyncEngine(store, api, Options{}, parent)
{
}

SyncEngine::SyncEngine(LocalStore &store, ApiClient &api, const Options &options, QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_api(api)
    , m_options(options)
    , m_random(QRandomGenerator::securelySeeded())
{
    m_probeTimer.setSingleShot(true);
    connect(&m_probeTimer, &QTimer::timeout, this, &SyncEngine::probe);
    m_retryTimer.setSingleShot(true);
    connect(&m_retryTimer, &QTimer::timeout, this, &SyncEngine::kick); // a backoff ran out: read the store again
    m_feedTimer.setInterval(m_options.feedIntervalMs);
    m_flushTimer.setSingleShot(true);
    connect(&m_flushTimer, &QTimer::timeout, this, &SyncEngine::flushOutcomes);
    connect(&m_feedTimer, &QTimer::timeout, this, &SyncEngine::refreshFeeds);
}

SyncEngine::~SyncEngine()
{
    stop();
}

void SyncEngine::start()
{
    m_running = true;
    refreshCounts();
    probe();
}

void SyncEngine::stop()
{
    m_running = false;
    m_probeTimer.stop();
    m_retryTimer.stop();
    m_feedTimer.stop();
    m_flushTimer.stop();
    if (!m_outcomes.isEmpty())
        flushOutcomes();
}

int SyncEngine::backoffMs(int attempts)
{
    const double base = m_options.backoffBaseMs * std::pow(2.0, std::min(attempts, 20));
    const double capped = std::min<double>(base, m_options.backoffMaxMs);
    const double factor = 1.0 + m_options.jitter * (2.0 * m_random.generateDouble() - 1.0);
    return std::max(1, static_cast<int>(capped * factor));
}

// --- online / offline ------------------------------------------------------------------------------------

void SyncEngine::probe()
{
    if (!m_running || m_probing)
        return;
    m_probing = true;
    const int saved = m_api.timeoutMs();
    m_api.setTimeoutMs(m_options.probeTimeoutMs);
    m_api.health([this](const ApiResult &result) {
        m_probing = false;
        if (result.ok())
            noteSuccess(true);
        else
            noteFailure();
        if (!m_running)
            return;
        // While coming back, confirm quickly; otherwise probe at the normal cadence.
        const bool recovering = !m_online && m_successes > 0;
        m_probeTimer.start(recovering ? m_options.recoveryProbeMs : m_options.probeIntervalMs);
    });
    m_api.setTimeoutMs(saved);
}

void SyncEngine::noteSuccess(bool fromProbe)
{
    m_failures = 0;
    if (m_online)
        return;
    // Only probes bring us back online: a late answer to an old request says little about the link now.
    if (fromProbe && ++m_successes >= m_options.successesToOnline)
        setOnline(true);
}

void SyncEngine::noteFailure()
{
    m_successes = 0;
    if (++m_failures >= m_options.failuresToOffline && m_online)
        setOnline(false);
}

void SyncEngine::setOnline(bool online)
{
    if (m_online == online)
        return;
    m_online = online;
    m_successes = 0;
    m_failures = 0;
    qCInfo(lcSync) << (online ? "online" : "offline");
    Q_EMIT onlineChanged(online);
    if (online) {
        if (m_options.followFeeds) {
            refreshFeeds();
            m_feedTimer.start();
        }
        kick();
    } else {
        m_feedTimer.stop();
        m_retryTimer.stop();
        // Probe soon, not at the end of the online cadence: the link is wanted back now.
        if (!m_probing)
            m_probeTimer.start(m_options.recoveryProbeMs);
    }
}

// --- queue -----------------------------------------------------------------------------------------------

std::optional<qint64> SyncEngine::enqueue(const NewAction &action)
{
    const auto id = m_store.enqueue(action);
    refreshCounts();
    kick();
    return id;
}

bool SyncEngine::journalPaymentAttempt(const QString &orderId, const QString &paymentIntentId, qint64 amountMinor, const QString &currency)
{
    PaymentRecord payment;
    payment.intentId = paymentIntentId;
    payment.orderId = orderId;
    payment.amountMinor = amountMinor;
    payment.currency = currency;
    payment.terminalResult = QStringLiteral("pending");
    payment.state = QStringLiteral("awaiting_terminal");
    payment.note = QStringLiteral("The card terminal was asked for the payment.");
    return m_store.recordPayment(payment);
}

int SyncEngine::recoverInterruptedPayments()
{
    int recovered = 0;
    for (const PaymentRecord &payment : m_store.payments()) {
        if (payment.state != QLatin1String("awaiting_terminal"))
            continue;
        // The app stopped while the terminal had the card: whether it was charged is unknown here. The confirm
        // lets the server ask the provider: paid → booked (or refunded if the seats are gone), not paid → failed.
        if (queueConfirm(payment.orderId, payment.intentId, payment.amountMinor, payment.currency, QStringLiteral("unknown")))
            ++recovered;
    }
    return recovered;
}

std::optional<qint64> SyncEngine::queueConfirm(const QString &orderId, const QString &paymentIntentId, qint64 amountMinor, const QString &currency,
                                               const QString &terminalResult)
{
    PaymentRecord payment;
    payment.intentId = paymentIntentId;
    payment.orderId = orderId;
    payment.amountMinor = amountMinor;
    payment.currency = currency;
    payment.terminalResult = terminalResult;
    payment.state = QStringLiteral("awaiting_confirm");
    payment.note = terminalResult == QLatin1String("approved")
        ? QStringLiteral("The terminal approved the payment; the booking is being confirmed.")
        : QStringLiteral("The app stopped while the terminal had the card; the server is asked what happened.");
    NewAction confirm;
    confirm.kind = QStringLiteral("confirm_order");
    confirm.method = QStringLiteral("POST");
    confirm.path = ApiClient::confirmPath(orderId);
    confirm.body = QJsonObject{{QStringLiteral("payment_intent_id"), paymentIntentId}};
    confirm.idempotencyKey = paymentIntentId;
    confirm.group = QStringLiteral("order:") + orderId;
    if (!m_store.recordPayment(payment, confirm))
        return std::nullopt;
    refreshCounts();
    kick();
    const auto action = m_store.actionByKey(paymentIntentId);
    return action ? std::optional<qint64>(action->id) : std::nullopt;
}

bool SyncEngine::retryParked(qint64 actionId)
{
    const bool ok = m_store.unpark(actionId);
    refreshCounts();
    kick();
    return ok;
}

void SyncEngine::kick()
{
    m_storeChanged = true;
    if (m_pumpScheduled || !m_running)
        return;
    m_pumpScheduled = true;
    QTimer::singleShot(0, this, [this] {
        m_pumpScheduled = false;
        pump();
    });
}

void SyncEngine::pump()
{
    if (!m_running || !m_online)
        return;
    // Refill from the store only after it changed (an answer committed, an action queued): a row read before its
    // outcome committed is never dispatched, because ids awaiting their commit stay in m_inFlight and their
    // groups stay busy until then. The oldest rows are read first, so a group's head always comes before its tail.
    if (m_ready.empty() && m_storeChanged && m_onWire < m_options.maxInFlight) {
        m_storeChanged = false;
        const QList<PendingAction> due = m_store.dueActions(QDateTime::currentDateTimeUtc(), m_options.batchSize + m_inFlight.size());
        for (const PendingAction &action : due) {
            if (!m_inFlight.contains(action.id) && !m_busyGroups.contains(action.group))
                m_ready.push_back(action);
        }
    }
    // Actions the batch endpoint takes share requests (one transaction for many holds on the server); the others,
    // and all of them when batching is off or refused, go one per request. One action per group is sent at a time.
    const bool batching = m_options.batchActions > 1 && !m_batchRefused;
    QList<PendingAction> batch;
    QJsonArray items;
    QSet<QString> batchGroups;
    qsizetype batchBytes = 0;
    auto sendBatch = [&] {
        if (!batch.isEmpty())
            dispatchBatch(batch, items);
        batch.clear();
        items = QJsonArray();
        batchGroups.clear();
        batchBytes = 0;
    };
    std::deque<PendingAction> waiting; // no batch slot free: they stay ready, in order
    while (!m_ready.empty() && m_onWire < m_options.maxInFlight && m_online) {
        PendingAction action = m_ready.front();
        m_ready.pop_front();
        if (m_inFlight.contains(action.id) || m_busyGroups.contains(action.group) || batchGroups.contains(action.group))
            continue; // read again once its group's action is recorded
        const auto item = batching && !m_sendAlone.contains(action.id) ? batchItem(action) : std::nullopt;
        if (!item) {
            dispatch(action);
            continue;
        }
        const qsizetype size = QJsonDocument(*item).toJson(QJsonDocument::Compact).size();
        if (!batch.isEmpty() && batchBytes + size > m_options.batchMaxBytes)
            sendBatch();
        if (m_batchesOnWire >= m_options.batchesInFlight || m_onWire >= m_options.maxInFlight) {
            waiting.push_back(action);
            continue;
        }
        batch.append(action);
        items.append(*item);
        batchGroups.insert(action.group);
        batchBytes += size;
        if (batch.size() >= m_options.batchActions)
            sendBatch();
    }
    sendBatch();
    for (auto it = waiting.rbegin(); it != waiting.rend(); ++it)
        m_ready.push_front(*it);
    if (m_inFlight.isEmpty() && m_ready.empty()) {
        if (m_storeChanged)
            kick(); // something was queued or answered since the last read
        else
            scheduleNextPump();
    }
}

void SyncEngine::scheduleNextPump()
{
    const auto next = m_store.nextAttemptAt();
    if (!next) {
        Q_EMIT drained();
        return;
    }
    const qint64 wait = QDateTime::currentDateTimeUtc().msecsTo(*next);
    if (wait <= 0) {
        kick();
        return;
    }
    Q_EMIT drained();
    m_retryTimer.start(static_cast<int>(std::min<qint64>(wait, m_options.backoffMaxMs)));
}

void SyncEngine::dispatch(const PendingAction &action)
{
    ++m_onWire;
    m_inFlight.insert(action.id);
    m_busyGroups.insert(action.group);
    m_api.request(action.method, action.path, action.body, action.idempotencyKey,
                  [this, action](const ApiResult &result) { onAnswer(action, result); });
}

void SyncEngine::dispatchBatch(const QList<PendingAction> &actions, const QJsonArray &items)
{
    ++m_onWire;
    ++m_batchesOnWire;
    for (const PendingAction &action : actions) {
        m_inFlight.insert(action.id);
        m_busyGroups.insert(action.group);
    }
    m_api.syncBatch(items, [this, actions](const ApiResult &result) { onBatchAnswer(actions, result); });
}

void SyncEngine::onAnswer(const PendingAction &action, const ApiResult &result)
{
    // The connection is free for another group at once; this action and its group wait for the commit below.
    --m_onWire;
    if (result.kind == ApiResult::Kind::NetworkError)
        noteFailure();
    else
        noteSuccess(false);
    m_outcomes.append({action, result});
    outcomesArrived();
}

void SyncEngine::onBatchAnswer(const QList<PendingAction> &actions, const ApiResult &result)
{
    --m_onWire;
    --m_batchesOnWire;
    if (result.kind == ApiResult::Kind::NetworkError)
        noteFailure();
    else
        noteSuccess(false);
    if (result.ok()) {
        const QJsonArray results = result.json().value(QStringLiteral("results")).toArray();
        for (qsizetype i = 0; i < actions.size(); ++i) {
            std::optional<ApiResult> one = results.size() == actions.size() ? batchResult(results.at(i)) : std::nullopt;
            if (!one) {
                // Not an answer we can act on (the server may have applied it): retried under its key.
                one = ApiResult{};
                one->networkError = QStringLiteral("unreadable batch answer");
            }
            m_outcomes.append({actions.at(i), *one});
        }
    } else if (result.retryable()) {
        // The link failed or the server was busy: each action backs off and goes again under its own key.
        for (const PendingAction &action : actions)
            m_outcomes.append({action, result});
    } else {
        // The server refused the batch as a whole, so it applied none of it. One malformed action (the error
        // names its index) goes alone to its own endpoint, whose answer parks it; any other refusal (an older
        // server, a role without batches) means single requests from now on.
        const qint64 index = result.error.extra.value(QStringLiteral("index")).toInteger(-1);
        if (result.status == 400 && index >= 0 && index < actions.size()) {
            m_sendAlone.insert(actions.at(index).id);
        } else {
            m_batchRefused = true;
            qCWarning(lcSync) << "the server refuses batches, replaying one action per request:" << result.describe();
        }
        for (const PendingAction &action : actions)
            unsend(action);
        kick();
        return;
    }
    outcomesArrived();
}

void SyncEngine::unsend(const PendingAction &action)
{
    m_inFlight.remove(action.id);
    m_busyGroups.remove(action.group);
}

void SyncEngine::outcomesArrived()
{
    // Group commit: answers that arrive within a few milliseconds share one durable transaction (one fsync),
    // and a full window of answers is written at once.
    if (m_outcomes.size() >= std::max(1, m_options.maxInFlight / 2)) {
        m_flushTimer.stop();
        flushOutcomes();
    } else if (!m_flushTimer.isActive()) {
        m_flushTimer.start(m_onWire == 0 ? 0 : m_options.flushDelayMs);
    }
    pump();
}

bool SyncEngine::applyOutcome(const Outcome &outcome, QList<std::function<void()>> &notes)
{
    const PendingAction &action = outcome.action;
    const ApiResult &result = outcome.result;
    const qint64 id = action.id;
    const QString kind = action.kind;

    if (result.retryable()) {
        const int delay = backoffMs(action.attempts);
        qCDebug(lcSync) << "action" << id << kind << "retry in" << delay << "ms:" << result.describe();
        return m_store.scheduleRetry(id, QDateTime::currentDateTimeUtc().addMSecs(delay), result.describe());
    }

    const QString intent = action.body.value(QStringLiteral("payment_intent_id")).toString();
    if (kind == QLatin1String("confirm_order")) {
        QString state;
        QString note;
        QString bookingId;
        QString bookingRef;
        if (result.ok()) {
            const QJsonObject booking = result.json();
            state = QStringLiteral("confirmed");
            note = QStringLiteral("Booking %1 confirmed.").arg(booking.value(QStringLiteral("booking_ref")).toString());
            bookingId = booking.value(QStringLiteral("booking_id")).toVariant().toString();
            bookingRef = booking.value(QStringLiteral("booking_ref")).toString();
        } else if (result.status == 409 && result.error.code != QLatin1String("hold_lost") && !approvedAtTerminal(intent)) {
            // Recovered after a restart and the provider has no payment for it (payment_pending, order_expired):
            // nothing to refund. A late payment is refunded by the server's reconciler.
            state = QStringLiteral("failed");
            note = QStringLiteral("No payment was taken for this order (%1).").arg(result.error.code);
        } else if (result.status == 409) {
            state = QStringLiteral("refund_due");
            note = QStringLiteral("The seats could not be kept (%1); the payment is refunded to the card.").arg(result.error.code);
        } else if (result.status == 402) {
            state = QStringLiteral("failed");
            note = QStringLiteral("The payment provider reports the payment as failed; nothing was charged.");
        }
        if (!state.isEmpty()) {
            if (!m_store.setPaymentState(intent, state, note, bookingId, bookingRef) || !m_store.markDone(id, result.status, result.body))
                return false;
            notes.append([this, id, kind, result, intent, state] {
                Q_EMIT actionFinished(id, kind, result.status, result.body);
                Q_EMIT paymentSettled(intent, state);
            });
            return true;
        }
        // Anything else (401, 404, 422...) cannot be fixed by retrying: park it, keep the payment visible.
        const QString reason = QStringLiteral("confirm refused: %1").arg(result.describe());
        if (!m_store.setPaymentState(intent, QStringLiteral("awaiting_confirm"), reason) || !m_store.park(id, reason, result.status, result.body))
            return false;
        notes.append([this, id, kind, reason] { Q_EMIT actionParked(id, kind, reason); });
        return true;
    }

    if (kind == QLatin1String("checkin")) {
        const QString nonce = action.idempotencyKey;
        if (result.ok()) {
            if (!m_store.setScanResult(nonce, QStringLiteral("uploaded"), result.json().value(QStringLiteral("result")).toString(), result.body)
                || !m_store.markDone(id, result.status, result.body))
                return false;
            notes.append([this, id, kind, result] { Q_EMIT actionFinished(id, kind, result.status, result.body); });
            return true;
        }
        const QString reason = QStringLiteral("check-in upload refused: %1").arg(result.describe());
        if (!m_store.setScanResult(nonce, QStringLiteral("parked"), result.error.code, result.body) || !m_store.park(id, reason, result.status, result.body))
            return false;
        notes.append([this, id, kind, reason] { Q_EMIT actionParked(id, kind, reason); });
        return true;
    }

    if (result.ok()) {
        if (!m_store.markDone(id, result.status, result.body))
            return false;
        notes.append([this, id, kind, result] { Q_EMIT actionFinished(id, kind, result.status, result.body); });
        return true;
    }
    // A definite refusal that the same request will always get (bad input, unknown show, seats taken...).
    const QString reason = result.describe();
    if (!m_store.park(id, reason, result.status, result.body))
        return false;
    notes.append([this, id, kind, reason] { Q_EMIT actionParked(id, kind, reason); });
    return true;
}

void SyncEngine::flushOutcomes()
{
    if (m_outcomes.isEmpty())
        return;
    const QList<Outcome> outcomes = std::move(m_outcomes);
    m_outcomes.clear();
    QList<std::function<void()>> notes;
    const bool ok = m_store.transaction([&] {
        for (const Outcome &outcome : outcomes) {
            if (!applyOutcome(outcome, notes))
                return false;
        }
        return true;
    });
    if (!ok) {
        // The store refused (disk full?): nothing was recorded, so every one of these is still pending and
        // will be sent again with its idempotency key.
        qCWarning(lcSync) << "could not record" << outcomes.size() << "answers:" << m_store.errorString();
    }
    for (const Outcome &outcome : outcomes) {
        unsend(outcome.action);
        if (ok && !outcome.result.retryable())
            m_sendAlone.remove(outcome.action.id);
    }
    m_storeChanged = true;
    refreshCounts();
    if (ok) {
        for (const auto &emitSignal : notes)
            emitSignal();
    }
    pump();
}

bool SyncEngine::approvedAtTerminal(const QString &paymentIntentId)
{
    const std::optional<PaymentRecord> payment = m_store.payment(paymentIntentId);
    return !payment || payment->terminalResult == QLatin1String("approved");
}

void SyncEngine::refreshCounts()
{
    const int pending = m_store.pendingCount();
    const int parked = m_store.parkedCount();
    if (pending != m_pendingCount) {
        m_pendingCount = pending;
        Q_EMIT pendingCountChanged(pending);
    }
    if (parked != m_parkedCount) {
        m_parkedCount = parked;
        Q_EMIT parkedCountChanged(parked);
    }
}

// --- feeds -----------------------------------------------------------------------------------------------

void SyncEngine::refreshFeeds()
{
    if (!m_online || m_feedsRunning)
        return;
    m_feedsRunning = true;
    m_feedSteps = 4;
    m_api.keys([this](const ApiResult &result) {
        if (result.ok()) {
            QList<PublicKey> keys;
            const QJsonArray array = result.jsonArray();
            for (const QJsonValue &value : array) {
                const QJsonObject object = value.toObject();
                PublicKey key;
                key.keyId = static_cast<quint32>(object.value(QStringLiteral("key_id")).toInteger());
                key.publicKey = QByteArray::fromBase64(object.value(QStringLiteral("public_key")).toString().toLatin1());
                key.venueId = object.value(QStringLiteral("venue_id")).toInteger();
                key.notAfter = QDateTime::fromString(object.value(QStringLiteral("not_after")).toString(), Qt::ISODateWithMs);
                if (key.keyId != 0 && key.publicKey.size() == 32)
                    keys.append(key);
            }
            // An empty answer does not wipe the keys we have: we may be talking to a server that lost them. The venue
            // is kept whatever the keys: the door admits only that venue's (0, none said: nothing offline).
            m_store.setDeviceVenue(result.venueId);
            if (!keys.isEmpty())
                m_store.replacePublicKeys(keys);
        } else if (result.kind == ApiResult::Kind::NetworkError) {
            noteFailure();
        }
        feedStepDone();
        // The delegations are checked against the venue keys: fetched once those are current.
        refreshDelegations();
    });
    followRevocations();
    followEvents();
}

void SyncEngine::refreshDelegations()
{
    m_api.delegations([this](const ApiResult &result) {
        if (result.ok()) {
            // Only what this venue's keys signed is kept: a delegation is what lets a device key admit somebody.
            const qint64 venue = m_store.deviceVenue();
            QHash<quint32, QByteArray> venueKeys;
            for (const PublicKey &key : m_store.publicKeys()) {
                if (venue > 0 && key.venueId == venue)
                    venueKeys.insert(key.keyId, key.publicKey);
            }
            QList<DelegationRecord> kept;
            int refused = 0;
            for (const QJsonValue &value : result.json().value(QStringLiteral("delegations")).toArray()) {
                const QJsonObject entry = value.toObject();
                const auto delegation = DelegationCodec::fromJson(entry);
                if (!delegation || DelegationCodec::verify(*delegation, venueKeys) != TicketCheck::Ok) {
                    ++refused;
                    continue;
                }
                DelegationRecord record;
                record.delegationId = delegation->delegationId.toString(QUuid::WithoutBraces);
                record.leaseId = delegation->leaseId.toString(QUuid::WithoutBraces);
                record.document = DelegationCodec::toJson(*delegation);
                record.revokedAt = entry.value(QStringLiteral("revoked_at")).isString()
                                       ? QDateTime::fromString(entry.value(QStringLiteral("revoked_at")).toString(), Qt::ISODateWithMs)
                                       : QDateTime();
                if (entry.value(QStringLiteral("state")).toString() == QLatin1String("revoked") && !record.revokedAt.isValid())
                    record.revokedAt = QDateTime::currentDateTimeUtc();
                for (const QJsonValue &id : entry.value(QStringLiteral("ticket_ids")).toArray())
                    record.reportedTicketIds.append(id.toString());
                kept.append(record);
            }
            if (refused > 0)
                qCWarning(lcSync) << "refused" << refused << "delegations that this venue's keys did not sign";
            // The server's list is the whole current set: one that dropped out has ended its window.
            m_store.replaceVenueDelegations(kept);
        } else if (result.kind == ApiResult::Kind::NetworkError) {
            noteFailure();
        }
        feedStepDone();
    });
}

void SyncEngine::feedStepDone()
{
    if (--m_feedSteps == 0) {
        m_feedsRunning = false;
        Q_EMIT feedsCaughtUp();
    }
}

void SyncEngine::followFeed(const QString &feed, FeedRequest request, std::function<void(const QJsonArray &, const QString &)> keep)
{
    (m_api.*request)(m_store.cursor(feed), m_options.feedPageSize, [this, feed, request, keep](const ApiResult &result) {
        if (!result.ok()) {
            if (result.kind == ApiResult::Kind::NetworkError)
                noteFailure();
            feedStepDone();
            return;
        }
        const QJsonObject page = result.json();
        const QJsonArray array = page.value(feed).toArray();
        const QString next = page.value(QStringLiteral("next_cursor")).toVariant().toString();
        const QString before = m_store.cursor(feed);
        keep(array, next);
        if (!array.isEmpty() && array.size() >= m_options.feedPageSize && !next.isEmpty() && next != before && m_online)
            followFeed(feed, request, keep); // more pages
        else
            feedStepDone();
    });
}

void SyncEngine::followRevocations()
{
    followFeed(QStringLiteral("revocations"), &ApiClient::revocations, [this](const QJsonArray &array, const QString &next) {
        QList<Revocation> revocations;
        for (const QJsonValue &value : array) {
            const QJsonObject object = value.toObject();
            revocations.append({object.value(QStringLiteral("ticket_id")).toVariant().toString(),
                                QDateTime::fromString(object.value(QStringLiteral("revoked_at")).toString(), Qt::ISODateWithMs),
                                object.value(QStringLiteral("reason")).toString()});
        }
        m_store.addRevocations(revocations, next);
    });
}

void SyncEngine::followEvents()
{
    followFeed(QStringLiteral("events"), &ApiClient::events, [this](const QJsonArray &array, const QString &next) {
        QList<FeedEvent> events;
        for (const QJsonValue &value : array) {
            const QJsonObject object = value.toObject();
            events.append({object.value(QStringLiteral("event_id")).toVariant().toString(), object.value(QStringLiteral("type")).toString(),
                           object.value(QStringLiteral("aggregate_id")).toVariant().toString(), object.value(QStringLiteral("payload")).toObject(),
                           object.value(QStringLiteral("created_at")).toString()});
        }
        int added = 0;
        m_store.storeEvents(events, next, &added);
        if (added > 0)
            Q_EMIT eventsReceived(added);
    });
}

} // namespace marquee::sync
