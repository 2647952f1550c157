// SPDX-License-Identifier: AGPL-3.0-or-later
#include "localstore.h"
#include "synclog.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMutex>
#include <QSqlError>
#include <QSqlQuery>
#include <QThread>
#include <QUuid>

#ifdef Q_OS_UNIX
#include <unistd.h>
#endif

namespace marquee::sync {

namespace {

// Each migration runs in one transaction together with the PRAGMA user_version bump.
const char *const kMigrations[] = {
    // 1: the whole first schema.
    R"sql(
CREATE TABLE actions (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    kind            TEXT NOT NULL,
    method          TEXT NOT NULL,
    path            TEXT NOT NULL,
    body            TEXT NOT NULL,
    idempotency_key TEXT NOT NULL UNIQUE,
    grp             TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_error      TEXT NOT NULL DEFAULT '',
    state           INTEGER NOT NULL DEFAULT 0,
    result_status   INTEGER NOT NULL DEFAULT 0,
    result_body     BLOB
);
CREATE INDEX actions_group_pending ON actions (grp, id) WHERE state = 0;
CREATE INDEX actions_state ON actions (state, id);
CREATE TABLE payments (
    intent_id       TEXT PRIMARY KEY,
    order_id        TEXT NOT NULL,
    amount_minor    INTEGER NOT NULL,
    currency        TEXT NOT NULL,
    terminal_result TEXT NOT NULL,
    state           TEXT NOT NULL,
    booking_id      TEXT NOT NULL DEFAULT '',
    booking_ref     TEXT NOT NULL DEFAULT '',
    note            TEXT NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);
CREATE TABLE tickets (
    ticket_id      TEXT PRIMARY KEY,
    booking_id     TEXT NOT NULL DEFAULT '',
    booking_ref    TEXT NOT NULL,
    show_id        INTEGER NOT NULL,
    seat_id        TEXT NOT NULL,
    qr             TEXT NOT NULL,
    printed_at     INTEGER NOT NULL,
    reprints       INTEGER NOT NULL DEFAULT 0,
    reconciliation TEXT NOT NULL DEFAULT 'unknown' CHECK (reconciliation IN ('confirmed', 'voided', 'unknown')),
    note           TEXT NOT NULL DEFAULT ''
);
CREATE INDEX tickets_booking_ref ON tickets (booking_ref);
CREATE TABLE cache (
    key        TEXT PRIMARY KEY,
    document   BLOB NOT NULL,
    fetched_at INTEGER NOT NULL
);
CREATE TABLE public_keys (
    key_id     INTEGER PRIMARY KEY,
    public_key BLOB NOT NULL,
    venue_id   INTEGER NOT NULL,
    not_after  INTEGER
);
CREATE TABLE revocations (
    ticket_id  TEXT PRIMARY KEY,
    revoked_at INTEGER,
    reason     TEXT NOT NULL DEFAULT ''
);
CREATE TABLE cursors (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE feed_events (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id     TEXT NOT NULL UNIQUE,
    type         TEXT NOT NULL,
    aggregate_id TEXT NOT NULL,
    payload      TEXT NOT NULL,
    created_at   TEXT NOT NULL
);
CREATE TABLE scans (
    nonce           TEXT PRIMARY KEY,
    qr              TEXT NOT NULL,
    ticket_id       TEXT NOT NULL DEFAULT '',
    scanned_at      INTEGER NOT NULL,
    local_result    TEXT NOT NULL,
    upload_state    TEXT NOT NULL DEFAULT 'pending',
    server_result   TEXT NOT NULL DEFAULT '',
    server_response BLOB
);
CREATE TABLE reports (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at INTEGER NOT NULL,
    report     BLOB NOT NULL
);
)sql",
    // 2: print jobs (every print and reprint, failed ones too, with the print data a reprint needs).
    R"sql(
CREATE TABLE prints (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    booking_ref TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('printed', 'failed')),
    error       TEXT NOT NULL DEFAULT '',
    output      TEXT NOT NULL DEFAULT '',
    print_data  BLOB NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE INDEX prints_booking ON prints (booking_ref, id);
)sql",
    // 3: delegated ticket signing. The device's own delegations (one per lease, accepted after their venue
    // signature checked out) and the one ticket it signed per seat under each; the door's cache of the venue's
    // delegations (GET /api/v1/delegations). The device's private key is not in here: it is a 0600 file of its
    // own next to this one (DeviceTicketSigner).
    R"sql(
CREATE TABLE device_delegations (
    delegation_id TEXT PRIMARY KEY,
    lease_id      TEXT NOT NULL UNIQUE,
    document      TEXT NOT NULL,
    accepted_at   INTEGER NOT NULL,
    revoked_at    INTEGER
);
CREATE TABLE delegated_tickets (
    delegation_id TEXT NOT NULL REFERENCES device_delegations (delegation_id),
    seat_id       TEXT NOT NULL,
    ticket_id     TEXT NOT NULL UNIQUE,
    qr            TEXT NOT NULL,
    signed_at     INTEGER NOT NULL,
    PRIMARY KEY (delegation_id, seat_id)
);
CREATE TABLE venue_delegations (
    delegation_id       TEXT PRIMARY KEY,
    document            TEXT NOT NULL,
    revoked_at          INTEGER,
    reported_ticket_ids TEXT NOT NULL DEFAULT '[]'
);
)sql",
    // 4: a till's leases (the server's last word on each), its lease requests (sent again with the same key until
    // answered) and its journal of offline sales (each with the upload exactly as it is sent, every time).
    R"sql(
CREATE TABLE leases (
    lease_id   TEXT PRIMARY KEY,
    show_id    INTEGER NOT NULL,
    state      TEXT NOT NULL,
    return_by  INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    lease      BLOB NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX leases_show ON leases (show_id);
CREATE TABLE lease_requests (
    idempotency_key TEXT PRIMARY KEY,
    show_id         INTEGER NOT NULL,
    body            BLOB NOT NULL,
    state           TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'answered')),
    result_status   INTEGER NOT NULL DEFAULT 0,
    result_body     BLOB,
    created_at      INTEGER NOT NULL
);
CREATE TABLE offline_sales (
    device_seq     INTEGER PRIMARY KEY,
    lease_id       TEXT NOT NULL,
    show_id        INTEGER NOT NULL,
    seat_ids       TEXT NOT NULL,
    amount_minor   INTEGER NOT NULL,
    currency       TEXT NOT NULL,
    tendered_minor INTEGER NOT NULL,
    sold_at        INTEGER NOT NULL,
    staff          TEXT NOT NULL,
    body           BLOB NOT NULL,
    print_data     BLOB NOT NULL,
    print_state    TEXT NOT NULL DEFAULT 'pending' CHECK (print_state IN ('pending', 'printed', 'failed')),
    print_error    TEXT NOT NULL DEFAULT '',
    upload_state   TEXT NOT NULL DEFAULT 'pending' CHECK (upload_state IN ('pending', 'booked', 'refused')),
    attempts       INTEGER NOT NULL DEFAULT 0,
    last_error     TEXT NOT NULL DEFAULT '',
    result_status  INTEGER NOT NULL DEFAULT 0,
    result_body    BLOB,
    booking_id     TEXT NOT NULL DEFAULT '',
    booking_ref    TEXT NOT NULL DEFAULT '',
    answered_at    INTEGER
);
CREATE INDEX offline_sales_lease ON offline_sales (lease_id, device_seq);
CREATE INDEX offline_sales_upload ON offline_sales (upload_state, device_seq);
)sql",
};

qint64 toMs(const QDateTime &time)
{
    return time.isValid() ? time.toMSecsSinceEpoch() : 0;
}
QDateTime fromMs(qint64 ms)
{
    return ms ? QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC) : QDateTime();
}
QVariant nullableMs(const QDateTime &time)
{
    return time.isValid() ? QVariant(time.toMSecsSinceEpoch()) : QVariant(QMetaType::fromType<qint64>());
}
QByteArray toJson(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

// Transaction nesting depth per (store, thread): connections are per thread, so is the transaction.
thread_local QHash<const LocalStore *, int> t_depth;

PendingAction readAction(const QSqlQuery &q)
{
    PendingAction a;
    a.id = q.value(0).toLongLong();
    a.kind = q.value(1).toString();
    a.method = q.value(2).toString();
    a.path = q.value(3).toString();
    a.body = QJsonDocument::fromJson(q.value(4).toByteArray()).object();
    a.idempotencyKey = q.value(5).toString();
    a.group = q.value(6).toString();
    a.createdAt = fromMs(q.value(7).toLongLong());
    a.attempts = q.value(8).toInt();
    a.nextAttemptAt = fromMs(q.value(9).toLongLong());
    a.lastError = q.value(10).toString();
    a.state = static_cast<ActionState>(q.value(11).toInt());
    a.resultStatus = q.value(12).toInt();
    a.resultBody = q.value(13).toByteArray();
    return a;
}
const QString kActionColumns = QStringLiteral(
    "id, kind, method, path, body, idempotency_key, grp, created_at, attempts, next_attempt_at, last_error, state, result_status, result_body");

PaymentRecord readPayment(const QSqlQuery &q)
{
    PaymentRecord p;
    p.intentId = q.value(0).toString();
    p.orderId = q.value(1).toString();
    p.amountMinor = q.value(2).toLongLong();
    p.currency = q.value(3).toString();
    p.terminalResult = q.value(4).toString();
    p.state = q.value(5).toString();
    p.bookingId = q.value(6).toString();
    p.bookingRef = q.value(7).toString();
    p.note = q.value(8).toString();
    p.createdAt = fromMs(q.value(9).toLongLong());
    p.updatedAt = fromMs(q.value(10).toLongLong());
    return p;
}
const QString kPaymentColumns =
    QStringLiteral("intent_id, order_id, amount_minor, currency, terminal_result, state, booking_id, booking_ref, note, created_at, updated_at");

TicketRecord readTicket(const QSqlQuery &q)
{
    TicketRecord t;
    t.ticketId = q.value(0).toString();
    t.bookingId = q.value(1).toString();
    t.bookingRef = q.value(2).toString();
    t.showId = q.value(3).toLongLong();
    t.seatId = q.value(4).toString();
    t.qr = q.value(5).toString();
    t.printedAt = fromMs(q.value(6).toLongLong());
    t.reprints = q.value(7).toInt();
    t.reconciliation = q.value(8).toString();
    t.note = q.value(9).toString();
    return t;
}
const QString kTicketColumns =
    QStringLiteral("ticket_id, booking_id, booking_ref, show_id, seat_id, qr, printed_at, reprints, reconciliation, note");

DelegationRecord readDelegation(const QSqlQuery &q)
{
    DelegationRecord d;
    d.delegationId = q.value(0).toString();
    d.leaseId = q.value(1).toString();
    d.document = QJsonDocument::fromJson(q.value(2).toByteArray()).object();
    d.acceptedAt = fromMs(q.value(3).toLongLong());
    d.revokedAt = fromMs(q.value(4).toLongLong());
    for (const QJsonValue &id : QJsonDocument::fromJson(q.value(5).toByteArray()).array())
        d.reportedTicketIds.append(id.toString());
    return d;
}

DelegatedTicketRecord readDelegatedTicket(const QSqlQuery &q)
{
    return {q.value(0).toString(), q.value(1).toString(), q.value(2).toString(), q.value(3).toString(), fromMs(q.value(4).toLongLong())};
}
const QString kDelegatedTicketColumns = QStringLiteral("delegation_id, seat_id, ticket_id, qr, signed_at");

CheckinScan readScan(const QSqlQuery &q)
{
    CheckinScan s;
    s.nonce = q.value(0).toString();
    s.qr = q.value(1).toString();
    s.ticketId = q.value(2).toString();
    s.scannedAt = fromMs(q.value(3).toLongLong());
    s.localResult = q.value(4).toString();
    s.uploadState = q.value(5).toString();
    s.serverResult = q.value(6).toString();
    s.serverResponse = q.value(7).toByteArray();
    return s;
}
const QString kScanColumns =
    QStringLiteral("nonce, qr, ticket_id, scanned_at, local_result, upload_state, server_result, server_response");

} // namespace

QString toString(ActionState state)
{
    switch (state) {
    case ActionState::Pending:
        return QStringLiteral("pending");
    case ActionState::Done:
        return QStringLiteral("done");
    case ActionState::Parked:
        return QStringLiteral("parked");
    }
    return QStringLiteral("pending");
}

LocalStore::LocalStore() = default;

LocalStore::~LocalStore()
{
    close();
}

bool LocalStore::fail(const QString &what, const QString &detail)
{
    m_error = what + QStringLiteral(": ") + detail;
    qCWarning(lcSync) << "local store:" << m_error;
    return false;
}

bool LocalStore::open(const QString &path)
{
    close();
    m_path = QFileInfo(path).absoluteFilePath();
    QDir().mkpath(QFileInfo(m_path).absolutePath());
    m_connectionPrefix = QStringLiteral("marquee-sync-%1-%2")
                             .arg(QString::fromLatin1(QCryptographicHash::hash(m_path.toUtf8(), QCryptographicHash::Sha1).toHex().left(12)),
                                  QUuid::createUuid().toString(QUuid::Id128).left(8));
    m_open = true;
    if (!db().isOpen()) {
        m_open = false;
        return false;
    }
    if (!migrate()) {
        close();
        return false;
    }
    presizeWal();
    return true;
}

void LocalStore::presizeWal()
{
    // Until the first checkpoint lets SQLite reuse the WAL from its start, every commit appends to it, and an
    // fdatasync that must also commit a new file size costs a second file-system journal write (on the
    // reference disk p50 8 ms instead of 4 ms, docs/perf/journal.md, section "Sync"). SQLite deletes the WAL
    // when the last connection closes, so a kiosk would pay that on its first few hundred journal writes after every
    // start — often the whole day. Zero-filled blocks past the last frame are never taken for frames (their salt
    // and checksum do not match), and the write lock held here keeps every writer out while the file grows.
    transaction([&] {
        QSqlQuery q(db());
        if (!q.exec(QStringLiteral("PRAGMA page_size")) || !q.next())
            return true;
        const qint64 pageSize = q.value(0).toLongLong();
        if (!q.exec(QStringLiteral("PRAGMA wal_autocheckpoint")) || !q.next())
            return true;
        const qint64 frames = q.value(0).toLongLong() * 9 / 8; // the checkpoint runs after the commit that crossed the limit
        const qint64 target = 32 + frames * (24 + pageSize);   // WAL header + frames (frame header + page)
        QFile wal(m_path + QStringLiteral("-wal"));
        if (!wal.exists() || wal.size() >= target || !wal.open(QIODevice::ReadWrite))
            return true;
        const QByteArray zeros(64 * 1024, '\0');
        wal.seek(wal.size());
        while (wal.size() < target) {
            if (wal.write(zeros.constData(), std::min<qint64>(zeros.size(), target - wal.size())) <= 0)
                break;
        }
        wal.flush();
#ifdef Q_OS_UNIX
        ::fdatasync(wal.handle());
#endif
        return true;
    });
}

void LocalStore::close()
{
    if (m_connectionPrefix.isEmpty())
        return;
    m_open = false;
    // Connections of other threads are removed when those threads end their use; remove every one we named.
    const QString own = m_connectionPrefix + QLatin1Char('-') + QString::number(reinterpret_cast<quintptr>(QThread::currentThread()), 16);
    const QStringList names = QSqlDatabase::connectionNames();
    for (const QString &name : names) {
        if (!name.startsWith(m_connectionPrefix))
            continue;
        if (name == own) {
            QSqlDatabase database = QSqlDatabase::database(name, false);
            database.close();
        }
        QSqlDatabase::removeDatabase(name);
    }
    m_connectionPrefix.clear();
}

QSqlDatabase LocalStore::db()
{
    const QString name = m_connectionPrefix + QLatin1Char('-') + QString::number(reinterpret_cast<quintptr>(QThread::currentThread()), 16);
    if (QSqlDatabase::contains(name))
        return QSqlDatabase::database(name, false);
    QSqlDatabase database = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
    database.setDatabaseName(m_path);
    database.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=10000"));
    if (!database.open()) {
        fail(QStringLiteral("cannot open %1").arg(m_path), database.lastError().text());
        return database;
    }
    // Durable commits: WAL plus synchronous=FULL fsyncs the WAL on every commit.
    QSqlQuery q(database);
    for (const char *pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA foreign_keys=ON"}) {
        if (!q.exec(QString::fromLatin1(pragma)))
            fail(QString::fromLatin1(pragma), q.lastError().text());
    }
    return database;
}

int LocalStore::schemaVersion()
{
    QSqlQuery q(db());
    if (!q.exec(QStringLiteral("PRAGMA user_version")) || !q.next())
        return -1;
    return q.value(0).toInt();
}

bool LocalStore::migrate()
{
    const int current = schemaVersion();
    if (current < 0)
        return fail(QStringLiteral("cannot read schema version"), m_path);
    if (current > kSchemaVersion)
        return fail(QStringLiteral("refusing a newer schema"), QStringLiteral("file has version %1, this build knows %2").arg(current).arg(kSchemaVersion));
    for (int version = current + 1; version <= kSchemaVersion; ++version) {
        const bool ok = transaction([&] {
            const QStringList statements = QString::fromUtf8(kMigrations[version - 1]).split(QLatin1Char(';'), Qt::SkipEmptyParts);
            for (const QString &statement : statements) {
                if (statement.trimmed().isEmpty())
                    continue;
                if (!exec(statement))
                    return false;
            }
            return exec(QStringLiteral("PRAGMA user_version = %1").arg(version));
        });
        if (!ok)
            return fail(QStringLiteral("migration %1 failed").arg(version), m_error);
        qCInfo(lcSync) << "local store" << m_path << "migrated to schema" << version;
    }
    return true;
}

bool LocalStore::exec(const QString &sql, const QVariantList &values)
{
    QSqlQuery q(db());
    if (!q.prepare(sql))
        return fail(QStringLiteral("prepare"), q.lastError().text() + QStringLiteral(" in ") + sql.simplified());
    for (const QVariant &value : values) {
        // A null QString binds as SQL NULL; the schema wants '' for "none".
        if (value.metaType().id() == QMetaType::QString && value.toString().isNull())
            q.addBindValue(QStringLiteral(""));
        else
            q.addBindValue(value);
    }
    if (!q.exec())
        return fail(QStringLiteral("exec"), q.lastError().text() + QStringLiteral(" in ") + sql.simplified());
    return true;
}

bool LocalStore::transaction(const std::function<bool()> &work)
{
    if (!m_open)
        return fail(QStringLiteral("transaction"), QStringLiteral("store is not open"));
    if (t_depth.value(this) > 0) {
        ++t_depth[this];
        const bool ok = work();
        --t_depth[this];
        return ok;
    }
    QSqlDatabase database = db();
    // BEGIN IMMEDIATE takes the write lock up front, so two threads never deadlock upgrading read locks.
    QSqlQuery begin(database);
    if (!begin.exec(QStringLiteral("BEGIN IMMEDIATE")))
        return fail(QStringLiteral("begin"), begin.lastError().text());
    t_depth[this] = 1;
    const bool ok = work();
    t_depth.remove(this);
    QSqlQuery end(database);
    if (!ok) {
        end.exec(QStringLiteral("ROLLBACK"));
        return false;
    }
    if (!end.exec(QStringLiteral("COMMIT"))) {
        const QString error = end.lastError().text();
        QSqlQuery(database).exec(QStringLiteral("ROLLBACK"));
        return fail(QStringLiteral("commit"), error);
    }
    return true;
}

// --- queue -----------------------------------------------------------------------------------------------

std::optional<qint64> LocalStore::enqueue(const NewAction &action)
{
    if (action.idempotencyKey.isEmpty() || action.path.isEmpty()) {
        fail(QStringLiteral("enqueue"), QStringLiteral("an action needs a path and an idempotency key"));
        return std::nullopt;
    }
    std::optional<qint64> id;
    const bool ok = transaction([&] {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        if (!exec(QStringLiteral("INSERT OR IGNORE INTO actions (kind, method, path, body, idempotency_key, grp, created_at, next_attempt_at) "
                                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
                  {action.kind, action.method, action.path, QString::fromUtf8(toJson(action.body)), action.idempotencyKey,
                   action.group.isEmpty() ? action.idempotencyKey : action.group, now, now}))
            return false;
        QSqlQuery q(db());
        q.prepare(QStringLiteral("SELECT id FROM actions WHERE idempotency_key = ?"));
        q.addBindValue(action.idempotencyKey);
        if (!q.exec() || !q.next())
            return fail(QStringLiteral("enqueue"), q.lastError().text());
        id = q.value(0).toLongLong();
        return true;
    });
    return ok ? id : std::nullopt;
}

std::optional<PendingAction> LocalStore::action(qint64 id)
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT %1 FROM actions WHERE id = ?").arg(kActionColumns));
    q.addBindValue(id);
    if (!q.exec() || !q.next())
        return std::nullopt;
    return readAction(q);
}

std::optional<PendingAction> LocalStore::actionByKey(const QString &idempotencyKey)
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT %1 FROM actions WHERE idempotency_key = ?").arg(kActionColumns));
    q.addBindValue(idempotencyKey);
    if (!q.exec() || !q.next())
        return std::nullopt;
    return readAction(q);
}

QList<PendingAction> LocalStore::dueActions(const QDateTime &now, int limit)
{
    QList<PendingAction> result;
    QSqlQuery q(db());
    q.setForwardOnly(true);
    // The head of a group is its oldest pending action; later ones wait for it (done or parked).
    q.prepare(QStringLiteral("SELECT %1 FROM actions a WHERE state = 0 AND next_attempt_at <= ? "
                             "AND id = (SELECT min(id) FROM actions b WHERE b.grp = a.grp AND b.state = 0) ORDER BY id LIMIT ?")
                  .arg(kActionColumns));
    q.addBindValue(toMs(now));
    q.addBindValue(limit);
    if (!q.exec()) {
        fail(QStringLiteral("dueActions"), q.lastError().text());
        return result;
    }
    while (q.next())
        result.append(readAction(q));
    return result;
}

std::optional<QDateTime> LocalStore::nextAttemptAt()
{
    QSqlQuery q(db());
    if (!q.exec(QStringLiteral("SELECT min(next_attempt_at) FROM actions a WHERE state = 0 "
                               "AND id = (SELECT min(id) FROM actions b WHERE b.grp = a.grp AND b.state = 0)"))
        || !q.next() || q.value(0).isNull())
        return std::nullopt;
    return fromMs(q.value(0).toLongLong());
}

bool LocalStore::markDone(qint64 id, int status, const QByteArray &body)
{
    return transaction([&] {
        return exec(QStringLiteral("UPDATE actions SET state = 1, attempts = attempts + 1, result_status = ?, result_body = ?, last_error = '' "
                                   "WHERE id = ?"),
                    {status, body, id});
    });
}

bool LocalStore::scheduleRetry(qint64 id, const QDateTime &nextAttemptAt, const QString &error)
{
    return transaction([&] {
        return exec(QStringLiteral("UPDATE actions SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ? AND state = 0"),
                    {toMs(nextAttemptAt), error, id});
    });
}

bool LocalStore::park(qint64 id, const QString &reason, int status, const QByteArray &body)
{
    return transaction([&] {
        return exec(QStringLiteral("UPDATE actions SET state = 2, attempts = attempts + 1, last_error = ?, result_status = ?, result_body = ? "
                                   "WHERE id = ?"),
                    {reason, status, body, id});
    });
}

bool LocalStore::unpark(qint64 id)
{
    return transaction([&] {
        return exec(QStringLiteral("UPDATE actions SET state = 0, next_attempt_at = ? WHERE id = ? AND state = 2"),
                    {QDateTime::currentMSecsSinceEpoch(), id});
    });
}

int LocalStore::pendingCount()
{
    QSqlQuery q(db());
    if (!q.exec(QStringLiteral("SELECT count(*) FROM actions WHERE state = 0")) || !q.next())
        return -1;
    return q.value(0).toInt();
}

int LocalStore::parkedCount()
{
    QSqlQuery q(db());
    if (!q.exec(QStringLiteral("SELECT count(*) FROM actions WHERE state = 2")) || !q.next())
        return -1;
    return q.value(0).toInt();
}

QList<PendingAction> LocalStore::actions(ActionState state, int limit)
{
    QList<PendingAction> result;
    QSqlQuery q(db());
    q.setForwardOnly(true);
    q.prepare(QStringLiteral("SELECT %1 FROM actions WHERE state = ? ORDER BY id LIMIT ?").arg(kActionColumns));
    q.addBindValue(static_cast<int>(state));
    q.addBindValue(limit);
    if (q.exec()) {
        while (q.next())
            result.append(readAction(q));
    }
    return result;
}

// --- payment journal -------------------------------------------------------------------------------------

bool LocalStore::recordPayment(const PaymentRecord &payment, const std::optional<NewAction> &followUp)
{
    return transaction([&] {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        if (!exec(QStringLiteral("INSERT INTO payments (%1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                                 "ON CONFLICT (intent_id) DO UPDATE SET terminal_result = excluded.terminal_result, state = excluded.state, "
                                 "note = excluded.note, updated_at = excluded.updated_at")
                      .arg(kPaymentColumns),
                  {payment.intentId, payment.orderId, payment.amountMinor, payment.currency, payment.terminalResult, payment.state,
                   payment.bookingId, payment.bookingRef, payment.note, payment.createdAt.isValid() ? toMs(payment.createdAt) : now, now}))
            return false;
        return !followUp || enqueue(*followUp).has_value();
    });
}

bool LocalStore::setPaymentState(const QString &intentId, const QString &state, const QString &note, const QString &bookingId,
                                 const QString &bookingRef)
{
    return transaction([&] {
        return exec(QStringLiteral("UPDATE payments SET state = ?, note = ?, booking_id = CASE WHEN ? = '' THEN booking_id ELSE ? END, "
                                   "booking_ref = CASE WHEN ? = '' THEN booking_ref ELSE ? END, updated_at = ? WHERE intent_id = ?"),
                    {state, note, bookingId, bookingId, bookingRef, bookingRef, QDateTime::currentMSecsSinceEpoch(), intentId});
    });
}

std::optional<PaymentRecord> LocalStore::payment(const QString &intentId)
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT %1 FROM payments WHERE intent_id = ?").arg(kPaymentColumns));
    q.addBindValue(intentId);
    if (!q.exec() || !q.next())
        return std::nullopt;
    return readPayment(q);
}

QList<PaymentRecord> LocalStore::payments()
{
    QList<PaymentRecord> result;
    QSqlQuery q(db());
    if (q.exec(QStringLiteral("SELECT %1 FROM payments ORDER BY created_at, intent_id").arg(kPaymentColumns))) {
        while (q.next())
            result.append(readPayment(q));
    }
    return result;
}

// --- ticket journal --------------------------------------------------------------------------------------

bool LocalStore::journalPrintedTickets(const QList<TicketRecord> &tickets)
{
    return transaction([&] {
        for (const TicketRecord &t : tickets) {
            const qint64 printedAt = t.printedAt.isValid() ? toMs(t.printedAt) : QDateTime::currentMSecsSinceEpoch();
            if (!exec(QStringLiteral("INSERT INTO tickets (ticket_id, booking_id, booking_ref, show_id, seat_id, qr, printed_at) "
                                     "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (ticket_id) DO UPDATE SET reprints = reprints + 1"),
                      {t.ticketId, t.bookingId, t.bookingRef, t.showId, t.seatId, t.qr, printedAt}))
                return false;
        }
        return true;
    });
}

bool LocalStore::recordReprint(const QString &ticketId)
{
    return transaction([&] {
        if (!exec(QStringLiteral("UPDATE tickets SET reprints = reprints + 1 WHERE ticket_id = ?"), {ticketId}))
            return false;
        QSqlQuery q(db());
        q.exec(QStringLiteral("SELECT changes()"));
        return q.next() && q.value(0).toInt() == 1;
    });
}

bool LocalStore::setTicketReconciliation(const QString &ticketId, const QString &state, const QString &note)
{
    return transaction([&] { return exec(QStringLiteral("UPDATE tickets SET reconciliation = ?, note = ? WHERE ticket_id = ?"), {state, note, ticketId}); });
}

std::optional<TicketRecord> LocalStore::ticket(const QString &ticketId)
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT %1 FROM tickets WHERE ticket_id = ?").arg(kTicketColumns));
    q.addBindValue(ticketId);
    if (!q.exec() || !q.next())
        return std::nullopt;
    return readTicket(q);
}

QList<TicketRecord> LocalStore::tickets()
{
    QList<TicketRecord> result;
    QSqlQuery q(db());
    q.setForwardOnly(true);
    if (q.exec(QStringLiteral("SELECT %1 FROM tickets ORDER BY printed_at, ticket_id").arg(kTicketColumns))) {
        while (q.next())
            result.append(readTicket(q));
    }
    return result;
}

QList<TicketRecord> LocalStore::ticketsByBookingRef(const QString &bookingRef)
{
    QList<TicketRecord> result;
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT %1 FROM tickets WHERE booking_ref = ? ORDER BY seat_id").arg(kTicketColumns));
    q.addBindValue(bookingRef);
    if (q.exec()) {
        while (q.next())
            result.append(readTicket(q));
    }
    return result;
}

// --- print jobs ------------------------------------------------------------------------------------------

namespace {
const char *const kPrintColumns = "id, booking_ref, state, error, output, print_data, created_at";

PrintRecord readPrint(const QSqlQuery &q)
{
    PrintRecord p;
    p.id = q.value(0).toLongLong();
    p.bookingRef = q.value(1).toString();
    p.state = q.value(2).toString();
    p.error = q.value(3).toString();
    p.output = q.value(4).toString();
    p.printData = QJsonDocument::fromJson(q.value(5).toByteArray()).object();
    p.createdAt = fromMs(q.value(6).toLongLong());
    return p;
}
} // namespace

std::optional<qint64> LocalStore::recordPrint(const PrintRecord &print, const QList<TicketRecord> &printedTickets)
{
    std::optional<qint64> id;
    const bool ok = transaction([&] {
        if (!exec(QStringLiteral("INSERT INTO prints (booking_ref, state, error, output, print_data, created_at) VALUES (?, ?, ?, ?, ?, ?)"),
                  {print.bookingRef, print.state, print.error, print.output, toJson(print.printData), QDateTime::currentMSecsSinceEpoch()}))
            return false;
        QSqlQuery q(db());
        if (!q.exec(QStringLiteral("SELECT last_insert_rowid()")) || !q.next())
            return false;
        id = q.value(0).toLongLong();
        return printedTickets.isEmpty() || journalPrintedTickets(printedTickets);
    });
    return ok ? id : std::nullopt;
}

std::optional<PrintRecord> LocalStore::lastPrintOf(const QString &bookingRef)
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT %1 FROM prints WHERE booking_ref = ? ORDER BY id DESC LIMIT 1").arg(QLatin1String(kPrintColumns)));
    q.addBindValue(bookingRef);
    if (!q.exec() || !q.next())
        return std::nullopt;
    return readPrint(q);
}

QList<PrintRecord> LocalStore::prints(int limit)
{
    QList<PrintRecord> result;
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT %1 FROM prints ORDER BY id DESC LIMIT ?").arg(QLatin1String(kPrintColumns)));
    q.addBindValue(limit);
    if (q.exec()) {
        while (q.next())
            result.append(readPrint(q));
    }
    return result;
}

// --- caches ----------------------------------------------------------------------------------------------

bool LocalStore::putCache(const QString &key, const QByteArray &document)
{
    return transaction([&] {
        return exec(QStringLiteral("INSERT INTO cache (key, document, fetched_at) VALUES (?, ?, ?) "
                                   "ON CONFLICT (key) DO UPDATE SET document = excluded.document, fetched_at = excluded.fetched_at"),
                    {key, document, QDateTime::currentMSecsSinceEpoch()});
    });
}

std::optional<QByteArray> LocalStore::cached(const QString &key)
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT document FROM cache WHERE key = ?"));
    q.addBindValue(key);
    if (!q.exec() || !q.next())
        return std::nullopt;
    return q.value(0).toByteArray();
}

bool LocalStore::replacePublicKeys(const QList<PublicKey> &keys)
{
    return transaction([&] {
        if (!exec(QStringLiteral("DELETE FROM public_keys")))
            return false;
        for (const PublicKey &k : keys) {
            if (!exec(QStringLiteral("INSERT OR REPLACE INTO public_keys (key_id, public_key, venue_id, not_after) VALUES (?, ?, ?, ?)"),
                      {static_cast<qint64>(k.keyId), k.publicKey, k.venueId, nullableMs(k.notAfter)}))
                return false;
        }
        return true;
    });
}

QList<PublicKey> LocalStore::publicKeys()
{
    QList<PublicKey> result;
    QSqlQuery q(db());
    if (q.exec(QStringLiteral("SELECT key_id, public_key, venue_id, not_after FROM public_keys ORDER BY key_id"))) {
        while (q.next())
            result.append({static_cast<quint32>(q.value(0).toLongLong()), q.value(1).toByteArray(), q.value(2).toLongLong(),
                           fromMs(q.value(3).toLongLong())});
    }
    return result;
}

bool LocalStore::setDeviceVenue(qint64 venueId)
{
    return putCache(QStringLiteral("device-venue"), QByteArray::number(venueId));
}

qint64 LocalStore::deviceVenue()
{
    return cached(QStringLiteral("device-venue")).value_or(QByteArray()).toLongLong();
}

QHash<quint32, QByteArray> LocalStore::publicKeysById()
{
    QHash<quint32, QByteArray> result;
    for (const PublicKey &k : publicKeys())
        result.insert(k.keyId, k.publicKey);
    return result;
}

bool LocalStore::addRevocations(const QList<Revocation> &revocations, const QString &nextCursor)
{
    return transaction([&] {
        for (const Revocation &r : revocations) {
            if (!exec(QStringLiteral("INSERT OR IGNORE INTO revocations (ticket_id, revoked_at, reason) VALUES (?, ?, ?)"),
                      {r.ticketId, nullableMs(r.revokedAt), r.reason}))
                return false;
        }
        return nextCursor.isEmpty() || setCursor(QStringLiteral("revocations"), nextCursor);
    });
}

std::optional<Revocation> LocalStore::revocation(const QString &ticketId)
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT ticket_id, revoked_at, reason FROM revocations WHERE ticket_id = ?"));
    q.addBindValue(ticketId);
    if (!q.exec() || !q.next())
        return std::nullopt;
    return Revocation{q.value(0).toString(), fromMs(q.value(1).toLongLong()), q.value(2).toString()};
}

bool LocalStore::storeEvents(const QList<FeedEvent> &events, const QString &nextCursor, int *newEvents)
{
    int added = 0;
    const bool ok = transaction([&] {
        for (const FeedEvent &e : events) {
            if (!exec(QStringLiteral("INSERT OR IGNORE INTO feed_events (event_id, type, aggregate_id, payload, created_at) VALUES (?, ?, ?, ?, ?)"),
                      {e.eventId, e.type, e.aggregateId, QString::fromUtf8(toJson(e.payload)), e.createdAt}))
                return false;
            QSqlQuery q(db());
            if (q.exec(QStringLiteral("SELECT changes()")) && q.next())
                added += q.value(0).toInt();
        }
        return nextCursor.isEmpty() || setCursor(QStringLiteral("events"), nextCursor);
    });
    if (newEvents)
        *newEvents = ok ? added : 0;
    return ok;
}

int LocalStore::eventCount()
{
    QSqlQuery q(db());
    if (!q.exec(QStringLiteral("SELECT count(*) FROM feed_events")) || !q.next())
        return -1;
    return q.value(0).toInt();
}

QList<FeedEvent> LocalStore::events(int limit)
{
    QList<FeedEvent> result;
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT event_id, type, aggregate_id, payload, created_at FROM feed_events ORDER BY seq LIMIT ?"));
    q.addBindValue(limit);
    if (q.exec()) {
        while (q.next())
            result.append({q.value(0).toString(), q.value(1).toString(), q.value(2).toString(),
                           QJsonDocument::fromJson(q.value(3).toByteArray()).object(), q.value(4).toString()});
    }
    return result;
}

QString LocalStore::cursor(const QString &name)
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT value FROM cursors WHERE name = ?"));
    q.addBindValue(name);
    if (!q.exec() || !q.next())
        return {};
    return q.value(0).toString();
}

bool LocalStore::setCursor(const QString &name, const QString &value)
{
    return transaction([&] {
        return exec(QStringLiteral("INSERT INTO cursors (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value"),
                    {name, value});
    });
}

// --- check-in --------------------------------------------------------------------------------------------

bool LocalStore::recordScan(const CheckinScan &scan, const std::optional<NewAction> &upload)
{
    return transaction([&] {
        if (!exec(QStringLiteral("INSERT INTO scans (nonce, qr, ticket_id, scanned_at, local_result, upload_state) VALUES (?, ?, ?, ?, ?, ?)"),
                  {scan.nonce, scan.qr, scan.ticketId, toMs(scan.scannedAt), scan.localResult, upload ? QStringLiteral("pending") : scan.uploadState}))
            return false;
        return !upload || enqueue(*upload).has_value();
    });
}

bool LocalStore::setScanResult(const QString &nonce, const QString &uploadState, const QString &serverResult, const QByteArray &response)
{
    return transaction([&] {
        return exec(QStringLiteral("UPDATE scans SET upload_state = ?, server_result = ?, server_response = ? WHERE nonce = ?"),
                    {uploadState, serverResult, response, nonce});
    });
}

std::optional<CheckinScan> LocalStore::scan(const QString &nonce)
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT %1 FROM scans WHERE nonce = ?").arg(kScanColumns));
    q.addBindValue(nonce);
    if (!q.exec() || !q.next())
        return std::nullopt;
    return readScan(q);
}

QList<CheckinScan> LocalStore::scans()
{
    QList<CheckinScan> result;
    QSqlQuery q(db());
    if (q.exec(QStringLiteral("SELECT %1 FROM scans ORDER BY scanned_at, nonce").arg(kScanColumns))) {
        while (q.next())
            result.append(readScan(q));
    }
    return result;
}

// --- delegated signing -------------------------------------------------------------------------------

bool LocalStore::storeDeviceDelegation(const DelegationRecord &delegation)
{
    return transaction([&] {
        // Accepting the same delegation again (a retried lease answer) keeps the first row and its revocation.
        return exec(QStringLiteral("INSERT INTO device_delegations (delegation_id, lease_id, document, accepted_at, revoked_at) "
                                   "VALUES (?, ?, ?, ?, ?) ON CONFLICT (delegation_id) DO NOTHING"),
                    {delegation.delegationId, delegation.leaseId, QString::fromUtf8(toJson(delegation.document)),
                     toMs(delegation.acceptedAt.isValid() ? delegation.acceptedAt : QDateTime::currentDateTimeUtc()),
                     nullableMs(delegation.revokedAt)});
    });
}

std::optional<DelegationRecord> LocalStore::deviceDelegation(const QString &delegationId)
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT delegation_id, lease_id, document, accepted_at, revoked_at, '[]' FROM device_delegations WHERE delegation_id = ?"));
    q.addBindValue(delegationId);
    if (!q.exec() || !q.next())
        return std::nullopt;
    return readDelegation(q);
}

std::optional<DelegationRecord> LocalStore::deviceDelegationForLease(const QString &leaseId)
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT delegation_id, lease_id, document, accepted_at, revoked_at, '[]' FROM device_delegations WHERE lease_id = ?"));
    q.addBindValue(leaseId);
    if (!q.exec() || !q.next())
        return std::nullopt;
    return readDelegation(q);
}

bool LocalStore::setDeviceDelegationRevoked(const QString &delegationId, const QDateTime &revokedAt)
{
    return transaction([&] {
        return exec(QStringLiteral("UPDATE device_delegations SET revoked_at = coalesce(revoked_at, ?) WHERE delegation_id = ?"),
                    {toMs(revokedAt.isValid() ? revokedAt : QDateTime::currentDateTimeUtc()), delegationId});
    });
}

std::optional<DelegatedTicketRecord> LocalStore::recordDelegatedTicket(const DelegatedTicketRecord &ticket)
{
    std::optional<DelegatedTicketRecord> stored;
    const bool ok = transaction([&] {
        if (!exec(QStringLiteral("INSERT INTO delegated_tickets (%1) VALUES (?, ?, ?, ?, ?) ON CONFLICT (delegation_id, seat_id) DO NOTHING")
                      .arg(kDelegatedTicketColumns),
                  {ticket.delegationId, ticket.seatId, ticket.ticketId, ticket.qr, toMs(ticket.signedAt)}))
            return false;
        stored = delegatedTicket(ticket.delegationId, ticket.seatId);
        return stored.has_value();
    });
    return ok ? stored : std::nullopt;
}

std::optional<DelegatedTicketRecord> LocalStore::delegatedTicket(const QString &delegationId, const QString &seatId)
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT %1 FROM delegated_tickets WHERE delegation_id = ? AND seat_id = ?").arg(kDelegatedTicketColumns));
    q.addBindValue(delegationId);
    q.addBindValue(seatId);
    if (!q.exec() || !q.next())
        return std::nullopt;
    return readDelegatedTicket(q);
}

QList<DelegatedTicketRecord> LocalStore::delegatedTickets(const QString &delegationId)
{
    QList<DelegatedTicketRecord> result;
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT %1 FROM delegated_tickets WHERE delegation_id = ? ORDER BY signed_at, seat_id").arg(kDelegatedTicketColumns));
    q.addBindValue(delegationId);
    if (q.exec()) {
        while (q.next())
            result.append(readDelegatedTicket(q));
    }
    return result;
}

bool LocalStore::replaceVenueDelegations(const QList<DelegationRecord> &delegations)
{
    return transaction([&] {
        if (!exec(QStringLiteral("DELETE FROM venue_delegations")))
            return false;
        for (const DelegationRecord &d : delegations) {
            if (!exec(QStringLiteral("INSERT OR REPLACE INTO venue_delegations (delegation_id, document, revoked_at, reported_ticket_ids) VALUES (?, ?, ?, ?)"),
                      {d.delegationId, QString::fromUtf8(toJson(d.document)), nullableMs(d.revokedAt),
                       QString::fromUtf8(QJsonDocument(QJsonArray::fromStringList(d.reportedTicketIds)).toJson(QJsonDocument::Compact))}))
                return false;
        }
        return true;
    });
}

std::optional<DelegationRecord> LocalStore::venueDelegation(const QString &delegationId)
{
    QSqlQuery q(db());
    q.prepare(QStringLiteral("SELECT delegation_id, '', document, 0, revoked_at, reported_ticket_ids FROM venue_delegations WHERE delegation_id = ?"));
    q.addBindValue(delegationId);
    if (!q.exec() || !q.next())
        return std::nullopt;
    DelegationRecord d = readDelegation(q);
    d.leaseId = d.document.value(QStringLiteral("lease_id")).toString();
    return d;
}

QList<DelegationRecord> LocalStore::venueDelegations()
{
    QList<DelegationRecord> result;
    QSqlQuery q(db());
    if (q.exec(QStringLiteral("SELECT delegation_id, '', document, 0, revoked_at, reported_ticket_ids FROM venue_delegations ORDER BY delegation_id"))) {
        while (q.next()) {
            DelegationRecord d = readDelegation(q);
            d.leaseId = d.document.value(QStringLiteral("lease_id")).toString();
            result.append(d);
        }
    }
    return result;
}

// --- reports ---------------------------------------------------------------------------------------------

bool LocalStore::saveReport(const QByteArray &json)
{
    return transaction([&] {
        return exec(QStringLiteral("INSERT INTO reports (created_at, report) VALUES (?, ?)"), {QDateTime::currentMSecsSinceEpoch(), json});
    });
}

std::optional<QByteArray> LocalStore::lastReport()
{
    QSqlQuery q(db());
    if (!q.exec(QStringLiteral("SELECT report FROM reports ORDER BY id DESC LIMIT 1")) || !q.next())
        return std::nullopt;
    return q.value(0).toByteArray();
}

} // namespace marquee::sync
