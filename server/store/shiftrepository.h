// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/authrepository.h"
#include "store/database.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <functional>
#include <optional>

namespace marquee::store {

/** @brief Filters of the shift list (GET /api/v1/reports/shifts). */
struct ShiftQuery {
    qint64 shiftId = 0;   ///< 0: any
    QDateTime from;       ///< opened at or after
    QDateTime to;         ///< opened before
    qint64 deviceId = 0;  ///< 0: any
    QString cashier;      ///< staff name; empty: any
    int limit = 500;
};

/** @brief A cash drawer operation. */
enum class DrawerOperation { CashIn, CashOut, NoSale };

/** @brief What a shift write decided. */
struct ShiftOutcome {
    enum class Kind { Done, NoOpenShift, AlreadyOpen, UnknownDevice, Error };
    Kind kind = Kind::Error;
    QJsonObject body; ///< the shift's Z-report (Done), or the open shift (AlreadyOpen)
};

/**
 * @brief Till shifts, the cash drawer and Z-reports. A shift belongs to one cashier (one open shift each); till
 * sales join it when the order is written (trigger in 006_till.sql), refunds when they are asked for.
 *
 * The Z-report: sales (orders of the shift that became bookings) by payment method, refunds paid out of this
 * drawer, voids (orders of the shift that ended without a booking), drawer operations, and expected cash =
 * opening float + cash sales + cash in − cash out − cash refunds; over/short = counted − expected.
 */
class ShiftRepository
{
public:
    explicit ShiftRepository(const Database &database);

    ShiftOutcome open(const Principal &cashier, const QString &currency, qint64 openingFloatMinor, qint64 deviceId);
    /** @brief The caller's open shift with its running Z-report; NoOpenShift when there is none. */
    ShiftOutcome current(const Principal &cashier);
    /** @brief Record a drawer operation on the caller's open shift, audited in the same transaction. */
    ShiftOutcome drawer(const Principal &cashier, DrawerOperation operation, qint64 amountMinor, const QString &reason);
    /** @brief Close the caller's open shift with the counted cash; stores and returns the final Z-report. */
    ShiftOutcome close(const Principal &cashier, qint64 countedCashMinor, const QString &note);
    /** @brief Shifts newest first, each with its Z-report (the stored one once closed). */
    std::optional<QJsonArray> list(const ShiftQuery &filter);

private:
    /** @brief @p live: compute even closed shifts' reports rather than read the stored ones. */
    std::optional<QJsonArray> zReports(QSqlDatabase &db, const ShiftQuery &filter, bool live = false);
    std::optional<qint64> openShiftId(QSqlDatabase &db, qint64 staffId, bool forUpdate);
    /** @brief Run @p work in one transaction on the caller's locked open shift; NoOpenShift without one. */
    ShiftOutcome inOpenShift(const Principal &cashier, const std::function<bool(QSqlDatabase &, qint64, ShiftOutcome &)> &work);

    const Database &m_database;
};

} // namespace marquee::store
