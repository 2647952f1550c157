// SPDX-License-Identifier: AGPL-3.0-or-later
#include "journal.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QUuid>

Q_LOGGING_CATEGORY(lcJournal, "marquee.app.journal")

namespace marquee::app {

namespace {
const char *const kMigrations[] = {
    "CREATE TABLE payment_attempts (id INTEGER PRIMARY KEY AUTOINCREMENT, order_id TEXT NOT NULL, "
    "payment_intent_id TEXT NOT NULL, amount_minor INTEGER NOT NULL, currency TEXT NOT NULL, state TEXT NOT NULL, "
    "detail TEXT NOT NULL DEFAULT '', booking TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL, updated_at TEXT NOT NULL)",
    "CREATE TABLE print_jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, booking_ref TEXT NOT NULL, state TEXT NOT NULL, "
    "error TEXT NOT NULL DEFAULT '', output TEXT NOT NULL DEFAULT '', booking TEXT NOT NULL, created_at TEXT NOT NULL)",
    "CREATE INDEX print_jobs_ref ON print_jobs (booking_ref)",
};

QString now()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

// A null QString binds as SQL NULL; the columns are NOT NULL with '' for "none".
QString nn(const QString &text)
{
    return text.isNull() ? QStringLiteral("") : text;
}

QJsonObject parseObject(const QString &text)
{
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

QString toText(const QJsonObject &object)
{
    return object.isEmpty() ? QString() : QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}
} // namespace

Journal::~Journal()
{
    if (!m_connection.isEmpty()) {
        QSqlDatabase::database(m_connection, false).close();
        QSqlDatabase::removeDatabase(m_connection);
    }
}

bool Journal::open(const QString &path, QString *error)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    const QString name = QStringLiteral("marquee-journal-") + QUuid::createUuid().toString(QUuid::WithoutBraces);
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(path);
        if (!db.open()) {
            if (error)
                *error = db.lastError().text();
            return false;
        }
        QSqlQuery query(db);
        // Durable before the terminal is asked: WAL with a full sync on every commit.
        query.exec(QStringLiteral("PRAGMA journal_mode=WAL"));
        query.exec(QStringLiteral("PRAGMA synchronous=FULL"));
        query.exec(QStringLiteral("PRAGMA user_version"));
        int version = query.next() ? query.value(0).toInt() : 0;
        for (int i = version; i < int(std::size(kMigrations)); ++i) {
            db.transaction();
            if (!query.exec(QString::fromLatin1(kMigrations[i])) || !query.exec(QStringLiteral("PRAGMA user_version = %1").arg(i + 1))) {
                if (error)
                    *error = query.lastError().text();
                db.rollback();
                return false;
            }
            db.commit();
        }
    }
    m_connection = name;
    return true;
}

qint64 Journal::beginAttempt(const QString &orderId, const QString &paymentIntentId, qint64 amountMinor, const QString &currency)
{
    QSqlQuery query(QSqlDatabase::database(m_connection));
    query.prepare(QStringLiteral("INSERT INTO payment_attempts (order_id, payment_intent_id, amount_minor, currency, state, created_at, updated_at) "
                                 "VALUES (?, ?, ?, ?, 'asking', ?, ?)"));
    const QString at = now();
    for (const QVariant &v : {QVariant(nn(orderId)), QVariant(nn(paymentIntentId)), QVariant(amountMinor), QVariant(nn(currency)), QVariant(at), QVariant(at)})
        query.addBindValue(v);
    if (!query.exec()) {
        qCWarning(lcJournal) << "cannot journal a payment attempt:" << query.lastError().text();
        return 0;
    }
    return query.lastInsertId().toLongLong();
}

bool Journal::updateAttempt(qint64 id, const QString &state, const QString &detail, const QJsonObject &booking)
{
    QSqlQuery query(QSqlDatabase::database(m_connection));
    query.prepare(QStringLiteral("UPDATE payment_attempts SET state = ?, detail = ?, booking = CASE WHEN ? = '' THEN booking ELSE ? END, "
                                 "updated_at = ? WHERE id = ?"));
    const QString bookingText = toText(booking);
    for (const QVariant &v : {QVariant(state), QVariant(nn(detail)), QVariant(nn(bookingText)), QVariant(nn(bookingText)), QVariant(now()), QVariant(id)})
        query.addBindValue(v);
    if (!query.exec()) {
        qCWarning(lcJournal) << "cannot update payment attempt" << id << query.lastError().text();
        return false;
    }
    return query.numRowsAffected() == 1;
}

static PaymentAttempt attemptFromRow(const QSqlQuery &query)
{
    PaymentAttempt a;
    a.id = query.value(0).toLongLong();
    a.orderId = query.value(1).toString();
    a.paymentIntentId = query.value(2).toString();
    a.amountMinor = query.value(3).toLongLong();
    a.currency = query.value(4).toString();
    a.state = query.value(5).toString();
    a.detail = query.value(6).toString();
    a.booking = parseObject(query.value(7).toString());
    return a;
}

static const QString kAttemptColumns =
    QStringLiteral("SELECT id, order_id, payment_intent_id, amount_minor, currency, state, detail, booking FROM payment_attempts ");

std::optional<PaymentAttempt> Journal::attempt(qint64 id) const
{
    QSqlQuery query(QSqlDatabase::database(m_connection));
    query.prepare(kAttemptColumns + QStringLiteral("WHERE id = ?"));
    query.addBindValue(id);
    if (!query.exec() || !query.next())
        return std::nullopt;
    return attemptFromRow(query);
}

QList<PaymentAttempt> Journal::unfinishedAttempts() const
{
    QSqlQuery query(QSqlDatabase::database(m_connection));
    query.prepare(kAttemptColumns + QStringLiteral("WHERE state IN ('asking', 'approved') ORDER BY id"));
    QList<PaymentAttempt> list;
    if (query.exec())
        while (query.next())
            list.append(attemptFromRow(query));
    return list;
}

qint64 Journal::recordPrint(const QString &bookingRef, const QString &state, const QString &error, const QString &output, const QJsonObject &booking)
{
    QSqlQuery query(QSqlDatabase::database(m_connection));
    query.prepare(QStringLiteral("INSERT INTO print_jobs (booking_ref, state, error, output, booking, created_at) VALUES (?, ?, ?, ?, ?, ?)"));
    for (const QVariant &v : {QVariant(nn(bookingRef)), QVariant(state), QVariant(nn(error)), QVariant(nn(output)), QVariant(nn(toText(booking))), QVariant(now())})
        query.addBindValue(v);
    if (!query.exec()) {
        qCWarning(lcJournal) << "cannot journal a print job:" << query.lastError().text();
        return 0;
    }
    return query.lastInsertId().toLongLong();
}

static PrintJob printFromRow(const QSqlQuery &query)
{
    return {query.value(0).toLongLong(), query.value(1).toString(), query.value(2).toString(), query.value(3).toString(),
            query.value(4).toString(), parseObject(query.value(5).toString())};
}

QList<PrintJob> Journal::printJobs(int limit) const
{
    QSqlQuery query(QSqlDatabase::database(m_connection));
    query.prepare(QStringLiteral("SELECT id, booking_ref, state, error, output, booking FROM print_jobs ORDER BY id DESC LIMIT ?"));
    query.addBindValue(limit);
    QList<PrintJob> list;
    if (query.exec())
        while (query.next())
            list.append(printFromRow(query));
    return list;
}

std::optional<PrintJob> Journal::lastPrintOf(const QString &bookingRef) const
{
    QSqlQuery query(QSqlDatabase::database(m_connection));
    query.prepare(QStringLiteral("SELECT id, booking_ref, state, error, output, booking FROM print_jobs WHERE booking_ref = ? ORDER BY id DESC LIMIT 1"));
    query.addBindValue(bookingRef);
    if (!query.exec() || !query.next())
        return std::nullopt;
    return printFromRow(query);
}

} // namespace marquee::app
