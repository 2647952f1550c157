// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QSqlDatabase>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>

namespace marquee::sync {

/** @brief Where a queued action stands. */
enum class ActionState {
    Pending = 0, ///< waiting to be sent (again)
    Done = 1,    ///< the server gave a definite answer (stored in resultStatus/resultBody)
    Parked = 2,  ///< poison: retrying cannot fix it; kept with a visible reason, no longer blocks its group
};

/** @brief A write the kiosk wants the server to apply, queued durably before it is sent. */
struct NewAction {
    QString kind;           ///< "hold", "create_order", "confirm_order", "release_hold", "checkin", "http"...
    QString method = QStringLiteral("POST");
    QString path;           ///< request path, e.g. /api/v1/orders/{id}/confirm
    QJsonObject body;       ///< JSON body (empty object for none)
    QString idempotencyKey; ///< unique per action; the server returns the stored result on a retry
    QString group;          ///< ordering group (order or booking id); actions of one group replay in order
};

/** @brief A queued action as stored. */
struct PendingAction : NewAction {
    qint64 id = 0;
    QDateTime createdAt;
    int attempts = 0;
    QDateTime nextAttemptAt;
    QString lastError;
    ActionState state = ActionState::Pending;
    int resultStatus = 0;   ///< HTTP status of the definite answer (Done or Parked), 0 otherwise
    QByteArray resultBody;  ///< body of that answer
};

/** @brief A card payment as the terminal reported it, journaled before anything is sent. */
struct PaymentRecord {
    QString intentId;        ///< payment_intent_id (primary key)
    QString orderId;
    qint64 amountMinor = 0;
    QString currency;
    QString terminalResult;  ///< "approved", "declined" or "unknown"
    QString state;           ///< "awaiting_confirm", "confirmed", "refund_due", "failed"
    // Known only later (or stamped by the store): brace-initialised so a record can be written with its first six.
    QString bookingId{};
    QString bookingRef{};
    QString note{};          ///< what happened last, for the customer and the manager
    QDateTime createdAt{};
    QDateTime updatedAt{};
};

/** @brief A printed ticket; never deleted. */
struct TicketRecord {
    QString ticketId;
    QString bookingId;
    QString bookingRef;
    qint64 showId = 0;
    QString seatId;
    QString qr;
    QDateTime printedAt;
    int reprints = 0;
    QString reconciliation = QStringLiteral("unknown"); ///< "confirmed", "voided" or "unknown"
    QString note;
};

/** @brief One print job (the tickets and receipt of a booking), printed or failed; kept for reprints. */
struct PrintRecord {
    qint64 id = 0;
    QString bookingRef;
    QString state;          ///< "printed" or "failed"
    QString error;          ///< why it failed (no paper, printer offline)
    QString output;         ///< the PDF path or printer target
    QJsonObject printData;  ///< everything on the tickets and receipt, as the app wrote it (a reprint needs nothing else)
    QDateTime createdAt;
};

/** @brief A public ticket-signing key (GET /api/v1/keys). */
struct PublicKey {
    quint32 keyId = 0;
    QByteArray publicKey; ///< raw 32 bytes
    qint64 venueId = 0;
    QDateTime notAfter;
};

/** @brief A revoked ticket (GET /api/v1/revocations). */
struct Revocation {
    QString ticketId;
    QDateTime revokedAt;
    QString reason;
};

/** @brief One event of the server's feed (GET /api/v1/events). */
struct FeedEvent {
    QString eventId;
    QString type;
    QString aggregateId;
    QJsonObject payload;
    QString createdAt;
};

/** @brief A check-in scan made at the door, online or not. */
struct CheckinScan {
    QString nonce;        ///< unique per scan; makes the upload safe to retry
    QString qr;
    QString ticketId;     ///< decoded from the QR when it could be
    QDateTime scannedAt;  ///< real time of the scan
    QString localResult;  ///< what the kiosk decided offline ("ok", "revoked", "invalid_signature"...)
    QString uploadState = QStringLiteral("pending"); ///< "pending", "uploaded", "parked"
    QString serverResult; ///< the server's result once uploaded ("ok", "already_redeemed"...)
    QByteArray serverResponse;
};

/** @brief A lease of this till as the server last described it (GET /api/v1/leases/{id} and every lease write). */
struct StoredLease {
    QString leaseId;
    qint64 showId = 0;
    QString state;         ///< active, revoked, expired, unreported, returned
    QDateTime returnBy;
    QDateTime expiresAt;
    QJsonObject lease;     ///< the server's JSON (seat_ids, leased_seats, sold_seats, ...)
    QDateTime updatedAt{};
    /** @brief The seats still leased to it when the server last said (neither sold nor given back). */
    QStringList leasedSeats() const;
};

/** @brief A lease request of this till, kept until answered so that a retry sends the same key and body. */
struct LeaseRequestRecord {
    QString idempotencyKey;
    qint64 showId = 0;
    QJsonObject body;
    QString state = QStringLiteral("pending"); ///< pending, answered
    int resultStatus = 0;
    QByteArray resultBody;
    QDateTime createdAt{};
};

/**
 * @brief One sale a till made offline from its lease, journaled before its tickets are printed. Never deleted:
 * its upload (`body`, sent unchanged on every retry) ends booked or refused, and both are kept for the manager.
 */
struct OfflineSaleRecord {
    qint64 deviceSeq = 0;       ///< the till's own number of the sale, the key of its upload
    QString leaseId;
    qint64 showId = 0;
    QStringList seatIds;
    qint64 amountMinor = 0;
    QString currency;
    qint64 tenderedMinor = 0;
    QDateTime soldAt;
    QString staff;              ///< who sold it: its upload goes with that member's session (their shift counts it)
    QJsonObject body;           ///< POST /api/v1/leases/{id}/sales, exactly as sent
    QJsonObject printData;      ///< the tickets and receipt as printed (a reprint after a crash needs nothing else)
    QString printState = QStringLiteral("pending"); ///< pending (journaled, not yet printed), printed, failed
    QString printError{};
    QString uploadState = QStringLiteral("pending"); ///< pending, booked, refused
    int attempts = 0;
    QString lastError{};        ///< the last network failure, or the server's code and message of a refusal
    int resultStatus = 0;
    QByteArray resultBody{};
    QString bookingId{};
    QString bookingRef{};
    QDateTime answeredAt{};
};

/**
 * @brief A server-signed delegation as the device keeps it: its own (from a lease answer) or one of the venue's
 * (GET /api/v1/delegations, at the door). The document is the delegation's JSON form (core DelegationCodec);
 * its venue signature was checked before it was stored.
 */
struct DelegationRecord {
    QString delegationId;
    QString leaseId;
    QJsonObject document;
    QDateTime acceptedAt;           ///< when this device stored it (its own delegations)
    QDateTime revokedAt;            ///< invalid while it is in force
    QStringList reportedTicketIds;  ///< the venue's: tickets of its lease's reported sales (honoured after a revocation)
};

/** @brief The one ticket a device signed for one seat under one of its delegations. */
struct DelegatedTicketRecord {
    QString delegationId;
    QString seatId;
    QString ticketId;
    QString qr;
    QDateTime signedAt;
};

/**
 * @brief Everything the kiosk must not forget, in one SQLite file: the queue of pending actions, the payment
 * and ticket journals, the catalog cache, public keys and revocations, feed cursors and check-in scans.
 *
 * WAL with synchronous=FULL: a method that returned true has been fsynced. The schema is versioned with
 * PRAGMA user_version; each migration runs in one transaction. The store opens one connection per thread
 * (named after the file and the thread), so one LocalStore may be used from several threads.
 */
class LocalStore
{
public:
    /** @brief The schema version this build writes. */
    static constexpr int kSchemaVersion = 4;

    LocalStore();
    ~LocalStore();
    LocalStore(const LocalStore &) = delete;
    LocalStore &operator=(const LocalStore &) = delete;

    /** @brief Open (creating and migrating) the store at @p path; false with errorString() on failure. */
    bool open(const QString &path);
    void close();
    bool isOpen() const { return m_open; }
    QString path() const { return m_path; }
    QString errorString() const { return m_error; }
    /** @brief PRAGMA user_version of the open file. */
    int schemaVersion();

    /** @brief Run @p work in one transaction (nested calls join the outer one); commit when it returns true. */
    bool transaction(const std::function<bool()> &work);

    // --- queue ---------------------------------------------------------------------------------------------
    /** @brief Queue an action; enqueueing the same idempotency key twice returns the first id. */
    std::optional<qint64> enqueue(const NewAction &action);
    std::optional<PendingAction> action(qint64 id);
    std::optional<PendingAction> actionByKey(const QString &idempotencyKey);
    /**
     * @brief The head (oldest pending action) of each group whose next attempt is due at @p now, oldest first.
     */
    QList<PendingAction> dueActions(const QDateTime &now, int limit);
    /** @brief The earliest next attempt among group heads, if any action is pending. */
    std::optional<QDateTime> nextAttemptAt();
    bool markDone(qint64 id, int status, const QByteArray &body);
    bool scheduleRetry(qint64 id, const QDateTime &nextAttemptAt, const QString &error);
    bool park(qint64 id, const QString &reason, int status = 0, const QByteArray &body = {});
    /** @brief Put a parked action back in the queue (a manager fixed the cause). */
    bool unpark(qint64 id);
    int pendingCount();
    int parkedCount();
    QList<PendingAction> actions(ActionState state, int limit = 1000);

    // --- payment journal ----------------------------------------------------------------------------------
    /** @brief Journal a payment (insert or replace) and queue @p followUp (for example its confirm) atomically. */
    bool recordPayment(const PaymentRecord &payment, const std::optional<NewAction> &followUp = std::nullopt);
    bool setPaymentState(const QString &intentId, const QString &state, const QString &note, const QString &bookingId = {},
                         const QString &bookingRef = {});
    std::optional<PaymentRecord> payment(const QString &intentId);
    QList<PaymentRecord> payments();

    // --- ticket journal -----------------------------------------------------------------------------------
    /** @brief Journal printed tickets in one transaction; a ticket already journaled counts as a reprint. */
    bool journalPrintedTickets(const QList<TicketRecord> &tickets);
    bool recordReprint(const QString &ticketId);
    bool setTicketReconciliation(const QString &ticketId, const QString &state, const QString &note);
    std::optional<TicketRecord> ticket(const QString &ticketId);
    QList<TicketRecord> tickets();
    QList<TicketRecord> ticketsByBookingRef(const QString &bookingRef);

    // --- print jobs ---------------------------------------------------------------------------------------
    /**
     * @brief Journal a print job and, for one that printed, its tickets (journalPrintedTickets) in one
     * transaction; returns the job id.
     */
    std::optional<qint64> recordPrint(const PrintRecord &print, const QList<TicketRecord> &printedTickets = {});
    std::optional<PrintRecord> lastPrintOf(const QString &bookingRef);
    /** @brief The newest print jobs first. */
    QList<PrintRecord> prints(int limit = 20);

    // --- caches -------------------------------------------------------------------------------------------
    /** @brief Cache a server document (catalog page, seat map) under @p key. */
    bool putCache(const QString &key, const QByteArray &document);
    std::optional<QByteArray> cached(const QString &key);

    bool replacePublicKeys(const QList<PublicKey> &keys);
    QList<PublicKey> publicKeys();
    QHash<quint32, QByteArray> publicKeysById();
    /** @brief The venue the server says this device is of (the keys feed's Marquee-Venue-Id), 0 until it said
     *  one: the door admits tickets of this venue's keys only. */
    bool setDeviceVenue(qint64 venueId);
    qint64 deviceVenue();

    /** @brief Add revocations and move the "revocations" cursor in one transaction. */
    bool addRevocations(const QList<Revocation> &revocations, const QString &nextCursor);
    std::optional<Revocation> revocation(const QString &ticketId);

    /** @brief Store feed events not seen before (by event id) and the "events" cursor in one transaction. */
    bool storeEvents(const QList<FeedEvent> &events, const QString &nextCursor, int *newEvents = nullptr);
    int eventCount();
    QList<FeedEvent> events(int limit = 1000);

    QString cursor(const QString &name);
    bool setCursor(const QString &name, const QString &value);

    // --- check-in -----------------------------------------------------------------------------------------
    /** @brief Record a scan and queue its upload in one transaction. */
    bool recordScan(const CheckinScan &scan, const std::optional<NewAction> &upload);
    bool setScanResult(const QString &nonce, const QString &uploadState, const QString &serverResult, const QByteArray &response);
    std::optional<CheckinScan> scan(const QString &nonce);
    QList<CheckinScan> scans();

    // --- delegated signing (DeviceTicketSigner) and the door's delegations (OfflineCheckin) ---------------
    /** @brief Keep one of this device's delegations; storing the same delegation id again changes nothing. */
    bool storeDeviceDelegation(const DelegationRecord &delegation);
    std::optional<DelegationRecord> deviceDelegation(const QString &delegationId);
    std::optional<DelegationRecord> deviceDelegationForLease(const QString &leaseId);
    /** @brief Mark a delegation of this device revoked (its lease was revoked or given back): it signs no more. */
    bool setDeviceDelegationRevoked(const QString &delegationId, const QDateTime &revokedAt = {});
    /**
     * @brief Keep the ticket signed for a seat, unless one is kept for that seat of that delegation already:
     * returns the ticket now on record for the seat (the earlier one wins), std::nullopt on a write failure.
     */
    std::optional<DelegatedTicketRecord> recordDelegatedTicket(const DelegatedTicketRecord &ticket);
    std::optional<DelegatedTicketRecord> delegatedTicket(const QString &delegationId, const QString &seatId);
    QList<DelegatedTicketRecord> delegatedTickets(const QString &delegationId);

    /** @brief Replace the door's cache of the venue's delegations (active and revoked) in one transaction. */
    bool replaceVenueDelegations(const QList<DelegationRecord> &delegations);
    std::optional<DelegationRecord> venueDelegation(const QString &delegationId);
    QList<DelegationRecord> venueDelegations();

    // --- reconciliation reports ---------------------------------------------------------------------------
    bool saveReport(const QByteArray &json);
    std::optional<QByteArray> lastReport();

    // --- leases and offline sales of a till (localstoreleases.cpp) ----------------------------------------
    /** @brief Keep the server's word on a lease (insert or replace). */
    bool saveLease(const StoredLease &lease);
    std::optional<StoredLease> lease(const QString &leaseId);
    /** @brief The leases of @p showId (0: of every show), oldest first. */
    QList<StoredLease> leases(qint64 showId = 0);
    /** @brief Forget a lease the server no longer has for this till (given back and every sale of it answered). */
    bool forgetLease(const QString &leaseId);
    /** @brief Keep a lease request before it is sent (the same key again returns false and keeps the first). */
    bool recordLeaseRequest(const LeaseRequestRecord &request);
    /** @brief The oldest unanswered lease request of @p showId. */
    std::optional<LeaseRequestRecord> pendingLeaseRequest(qint64 showId);
    bool answerLeaseRequest(const QString &idempotencyKey, int status, const QByteArray &body);
    /** @brief The next device_seq: one more than any sale journaled on this till. */
    qint64 nextDeviceSeq();
    /**
     * @brief Journal @p sale (its deviceSeq already taken from nextDeviceSeq() in the same transaction); false when
     * the number or one of its seats was sold before under the same lease — nothing is written then.
     */
    bool journalOfflineSale(const OfflineSaleRecord &sale);
    std::optional<OfflineSaleRecord> offlineSale(qint64 deviceSeq);
    /** @brief Offline sales, oldest first; @p uploadState filters ("" = all). */
    QList<OfflineSaleRecord> offlineSales(const QString &uploadState = {});
    /** @brief Every seat sold offline under @p leaseId, whatever became of its upload. */
    QStringList seatsSoldOffline(const QString &leaseId);
    /**
     * @brief Sales of @p leaseId not booked yet: waiting for an answer, or refused (a person must settle those
     * first: until then the lease is not given back, so its seats are not resold under a printed ticket).
     */
    int unsettledSales(const QString &leaseId);
    bool setOfflineSalePrinted(qint64 deviceSeq, const QString &printState, const QString &error = {});
    /** @brief A try that got no definite answer: counted, with what went wrong. */
    bool noteOfflineSaleAttempt(qint64 deviceSeq, const QString &error);
    /** @brief The definite answer: booked (booking id and ref) or refused (the server's code and message in @p error). */
    bool answerOfflineSale(qint64 deviceSeq, const QString &uploadState, int status, const QByteArray &body, const QString &bookingId,
                           const QString &bookingRef, const QString &error);

private:
    QSqlDatabase db();
    bool migrate();
    void presizeWal();
    bool exec(const QString &sql, const QVariantList &values = {});
    bool fail(const QString &what, const QString &detail);

    QString m_path;
    QString m_connectionPrefix;
    QString m_error;
    bool m_open = false;
};

/** @brief Wire name of an action state: "pending", "done", "parked". */
QString toString(ActionState state);

} // namespace marquee::sync
