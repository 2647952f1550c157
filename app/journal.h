// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>
#include <optional>

namespace marquee::app {

/** @brief One card payment attempt as the kiosk remembers it. */
struct PaymentAttempt {
    qint64 id = 0;
    QString orderId;
    QString paymentIntentId;
    qint64 amountMinor = 0;
    QString currency;
    QString state; ///< asking, approved, declined, aborted, timeout, confirmed, confirm_failed
    QString detail;
    QJsonObject booking; ///< the confirmed booking (with tickets), once there is one
};

/** @brief One print job (tickets and receipt of a booking). */
struct PrintJob {
    qint64 id = 0;
    QString bookingRef;
    QString state; ///< printed, failed
    QString error;
    QString output; ///< the PDF path or printer target
    QJsonObject booking;
};

/**
 * @brief The kiosk's local journal (SQLite, `PRAGMA user_version` migrations): payment attempts are written
 * before the terminal is asked, and every print, so that a crash or a printer fault never loses an approved
 * payment or a ticket. The offline-sync library (issue 5) will take these entries over into its durable queue.
 */
class Journal
{
public:
    Journal() = default;
    ~Journal();
    Journal(const Journal &) = delete;
    Journal &operator=(const Journal &) = delete;

    /** @brief Open or create the journal at @p path. */
    bool open(const QString &path, QString *error = nullptr);
    bool isOpen() const { return !m_connection.isEmpty(); }

    /** @brief Written before the terminal is asked; returns the attempt id, or 0 when the journal failed. */
    qint64 beginAttempt(const QString &orderId, const QString &paymentIntentId, qint64 amountMinor, const QString &currency);
    bool updateAttempt(qint64 id, const QString &state, const QString &detail = {}, const QJsonObject &booking = {});
    std::optional<PaymentAttempt> attempt(qint64 id) const;
    /** @brief Attempts that did not reach a final state (asking, approved): to recover after a restart. */
    QList<PaymentAttempt> unfinishedAttempts() const;

    qint64 recordPrint(const QString &bookingRef, const QString &state, const QString &error, const QString &output, const QJsonObject &booking);
    QList<PrintJob> printJobs(int limit = 20) const;
    std::optional<PrintJob> lastPrintOf(const QString &bookingRef) const;

private:
    QString m_connection;
};

} // namespace marquee::app
