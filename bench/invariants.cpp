// SPDX-License-Identifier: AGPL-3.0-or-later
#include "invariants.h"

#include "store/databaseconfig.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTextStream>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

namespace marquee::bench {

InvariantChecker::InvariantChecker(QString databaseUrl)
    : m_url(std::move(databaseUrl))
    , m_connection(QStringLiteral("marquee-load-check"))
{
}

bool InvariantChecker::open(QString *error)
{
    const auto config = store::DatabaseConfig::fromUrl(m_url, error);
    if (!config)
        return false;
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), m_connection);
    db.setHostName(config->host);
    db.setPort(config->port);
    db.setDatabaseName(config->database);
    db.setUserName(config->user);
    db.setPassword(config->password);
    if (!db.open()) {
        *error = db.lastError().text();
        return false;
    }
    QSqlQuery(db).exec(QStringLiteral("SET TIME ZONE 'UTC'"));
    return true;
}

QString InvariantChecker::databaseNow()
{
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    if (!query.exec(QStringLiteral("SELECT clock_timestamp()::text")) || !query.next())
        return {};
    return query.value(0).toString();
}

bool InvariantChecker::check(qint64 showId, const std::vector<Grant> &grants, const QString &sinceDbTime)
{
    QTextStream out(stdout);
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    bool allOk = true;
    auto report = [&](const QString &what, bool ok, const QString &detail) {
        out << "  [" << (ok ? "ok  " : "FAIL") << "] " << what << ": " << detail << "\n";
        allOk = allOk && ok;
    };
    auto scalarQuery = [&](const QString &sql, const QVariantList &binds, QVariantList *row) {
        QSqlQuery query(db);
        if (!query.prepare(sql))
            return false;
        for (const QVariant &value : binds)
            query.addBindValue(value);
        if (!query.exec() || !query.next()) {
            out << "  query failed: " << query.lastError().text() << "\n";
            return false;
        }
        for (int i = 0; i < query.record().count(); ++i)
            row->append(query.value(i));
        return true;
    };
    out << "== invariants (show " << showId << ") ==\n";

    // One statement each, so each check sees one snapshot and one now().
    QVariantList row;
    if (scalarQuery(QStringLiteral("SELECT count(*) FROM (SELECT s FROM holds h CROSS JOIN unnest(h.seat_ids) AS s "
                                   " WHERE h.show_id = ? AND h.released_at IS NULL AND h.expires_at > now() "
                                   " GROUP BY s HAVING count(*) > 1) twice"),
                    {showId}, &row))
        report(QStringLiteral("no seat in two live holds"), row.value(0).toLongLong() == 0,
               QStringLiteral("%1 seats in more than one live hold").arg(row.value(0).toLongLong()));
    else
        allOk = false;

    row.clear();
    if (scalarQuery(QStringLiteral(
                        "WITH live AS (SELECT h.hold_id, s AS seat_id FROM holds h CROSS JOIN unnest(h.seat_ids) AS s "
                        "               WHERE h.show_id = ? AND h.released_at IS NULL AND h.expires_at > now()), "
                        "     held AS (SELECT held_by AS hold_id, seat_id FROM show_seats "
                        "               WHERE show_id = ? AND status = 'held' AND hold_expires_at > now()) "
                        "SELECT count(*) FILTER (WHERE held.seat_id IS NULL), count(*) FILTER (WHERE live.seat_id IS NULL), "
                        "       count(*) FILTER (WHERE live.seat_id IS NOT NULL AND held.seat_id IS NOT NULL) "
                        "  FROM live FULL JOIN held ON held.hold_id = live.hold_id AND held.seat_id = live.seat_id"),
                    {showId, showId}, &row))
        report(QStringLiteral("seats held = seats of live holds"), row.value(0).toLongLong() == 0 && row.value(1).toLongLong() == 0,
               QStringLiteral("%1 matching seats; %2 in a live hold but not held by it; %3 held without a live hold")
                   .arg(row.value(2).toLongLong())
                   .arg(row.value(0).toLongLong())
                   .arg(row.value(1).toLongLong()));
    else
        allOk = false;

    // Every grant the client got exists with the very seats it was told (compared as sorted lists).
    {
        QSqlQuery query(db);
        query.setForwardOnly(true);
        query.prepare(QStringLiteral("SELECT hold_id::text, array_to_string(seat_ids, ',') FROM holds WHERE show_id = ? AND created_at >= ?::timestamptz"));
        query.addBindValue(showId);
        query.addBindValue(sinceDbTime.isEmpty() ? QStringLiteral("-infinity") : sinceDbTime);
        std::unordered_map<std::string, std::string> stored;
        if (query.exec()) {
            while (query.next())
                stored.emplace(query.value(0).toString().toStdString(), query.value(1).toString().toStdString());
        } else {
            out << "  query failed: " << query.lastError().text() << "\n";
            allOk = false;
        }
        size_t missing = 0, different = 0;
        for (const Grant &grant : grants) {
            const auto it = stored.find(grant.holdId);
            if (it == stored.end()) {
                ++missing;
                continue;
            }
            std::vector<std::string> seats = grant.seats;
            std::sort(seats.begin(), seats.end());
            std::string joined;
            for (const std::string &seat : seats)
                joined += (joined.empty() ? "" : ",") + seat;
            if (joined != it->second)
                ++different;
        }
        report(QStringLiteral("every 200 is a stored hold with its seats"), missing == 0 && different == 0,
               QStringLiteral("%1 grants; %2 unknown hold ids; %3 with other seats").arg(grants.size()).arg(missing).arg(different));
        report(QStringLiteral("holds created = 200s answered"), stored.size() == grants.size(),
               QStringLiteral("%1 holds created for the show during the run, %2 answered 200 (strict only if nothing else wrote)")
                   .arg(stored.size())
                   .arg(grants.size()));
    }

    // Client side: the same seat granted again while an earlier grant of it was provably still live.
    {
        std::unordered_map<std::string, std::vector<const Grant *>> bySeat;
        for (const Grant &grant : grants)
            for (const std::string &seat : grant.seats)
                bySeat[seat].push_back(&grant);
        size_t overlaps = 0;
        for (auto &[seat, list] : bySeat) {
            std::sort(list.begin(), list.end(), [](const Grant *a, const Grant *b) { return a->receivedMs < b->receivedMs; });
            for (size_t i = 1; i < list.size(); ++i) {
                // The later claim happened before its answer arrived; if that is before the earlier hold's
                // expiry, both were live at once.
                if (list[i]->receivedMs < list[i - 1]->expiresMs)
                    ++overlaps;
            }
        }
        report(QStringLiteral("no seat granted twice while live (client view)"), overlaps == 0,
               QStringLiteral("%1 overlapping grants over %2 distinct seats").arg(overlaps).arg(bySeat.size()));
    }
    return allOk;
}

} // namespace marquee::bench

namespace marquee::bench {

namespace {
// Share of the admitted entries (admittedMs >= 0) that some entry earlier in @p order was admitted after, or never.
double outOfOrderShare(const std::vector<std::pair<qint64, qint64>> &orderAndAdmittedMs)
{
    std::vector<std::pair<qint64, qint64>> sorted = orderAndAdmittedMs;
    std::sort(sorted.begin(), sorted.end());
    qint64 latestBefore = std::numeric_limits<qint64>::min();
    size_t admitted = 0, outOfOrder = 0;
    for (const auto &[order, admittedMs] : sorted) {
        const qint64 when = admittedMs < 0 ? std::numeric_limits<qint64>::max() : admittedMs;
        if (admittedMs >= 0) {
            ++admitted;
            if (latestBefore > when)
                ++outOfOrder;
        }
        latestBefore = std::max(latestBefore, when);
    }
    return admitted ? double(outOfOrder) / double(admitted) : 0;
}
} // namespace

bool InvariantChecker::checkSale(qint64 showId, const std::vector<std::string> &clientSeats,
                                 const std::vector<std::pair<qint64, qint64>> &soldOutNotices, qint64 startedWallMs, SaleReport *report)
{
    QTextStream out(stdout);
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    bool allOk = true;
    auto line = [&](const QString &what, bool ok, const QString &detail) {
        out << "  [" << (ok ? "ok  " : "FAIL") << "] " << what << ": " << detail << "\n";
        allOk = allOk && ok;
    };
    out << "== flash-sale invariants (show " << showId << ") ==\n";
    QSqlQuery query(db);
    // One statement: one snapshot of seats, bookings and booking seats.
    query.prepare(QStringLiteral(
        "SELECT (SELECT count(*) FROM show_seats WHERE show_id = :show), "
        "       (SELECT count(*) FROM show_seats WHERE show_id = :show AND status = 'booked'), "
        "       (SELECT coalesce(sum(cardinality(seat_ids)), 0) FROM bookings WHERE show_id = :show AND state = 'confirmed'), "
        "       (SELECT count(*) FROM booking_seats WHERE show_id = :show AND active), "
        "       (SELECT count(DISTINCT seat_id) FROM booking_seats WHERE show_id = :show AND active), "
        "       (SELECT count(*) FROM show_seats ss WHERE ss.show_id = :show AND ss.status = 'booked' AND NOT EXISTS ("
        "            SELECT 1 FROM bookings b WHERE b.booking_id = ss.booking_id AND b.state = 'confirmed' AND ss.seat_id = ANY (b.seat_ids))), "
        "       (SELECT sold_out FROM waiting_rooms WHERE show_id = :show), "
        "       (SELECT extract(epoch FROM sold_out_at - opens_at) FROM waiting_rooms WHERE show_id = :show), "
        "       (SELECT (extract(epoch FROM sold_out_at) * 1000)::bigint FROM waiting_rooms WHERE show_id = :show)"));
    query.bindValue(QStringLiteral(":show"), showId);
    if (!query.exec() || !query.next()) {
        out << "  query failed: " << query.lastError().text() << "\n";
        return false;
    }
    const qint64 total = query.value(0).toLongLong(), booked = query.value(1).toLongLong(), bookingSeats = query.value(2).toLongLong();
    const qint64 activeSeats = query.value(3).toLongLong(), distinctSeats = query.value(4).toLongLong(), orphans = query.value(5).toLongLong();
    const bool soldOut = query.value(6).toBool();
    report->sellOutSeconds = query.value(7).isNull() ? -1 : query.value(7).toDouble();
    const qint64 soldOutAtMs = query.value(8).toLongLong();
    report->oversold = std::max<qint64>(0, bookingSeats - total) + (activeSeats - distinctSeats) + orphans;
    line(QStringLiteral("seats booked = seats of confirmed bookings"), booked == bookingSeats && booked == activeSeats,
         QStringLiteral("%1 booked in show_seats, %2 in confirmed bookings, %3 active booking seats").arg(booked).arg(bookingSeats).arg(activeSeats));
    line(QStringLiteral("no seat sold twice"), activeSeats == distinctSeats,
         QStringLiteral("%1 active booking seats, %2 distinct").arg(activeSeats).arg(distinctSeats));
    line(QStringLiteral("no oversell"), bookingSeats <= total && orphans == 0,
         QStringLiteral("%1 sold of %2; %3 booked seats without a confirmed booking holding them").arg(bookingSeats).arg(total).arg(orphans));
    std::unordered_set<std::string> distinctClient(clientSeats.begin(), clientSeats.end());
    line(QStringLiteral("seats sold to clients = seats booked"), qint64(clientSeats.size()) == booked && distinctClient.size() == clientSeats.size(),
         QStringLiteral("%1 seats confirmed to clients (%2 distinct), %3 booked").arg(clientSeats.size()).arg(distinctClient.size()).arg(booked));
    line(QStringLiteral("sold out"), soldOut && booked == total,
         QStringLiteral("room sold_out=%1 after %2 s, %3 of %4 seats booked").arg(soldOut).arg(report->sellOutSeconds, 0, 'f', 2).arg(booked).arg(total));

    // Fairness from the room's own entries: rank (queue order), entry id (arrival order), admission time.
    query.setForwardOnly(true);
    query.prepare(QStringLiteral("SELECT e.entry_id, e.rank, coalesce((extract(epoch FROM e.admitted_at) * 1000)::bigint, -1), "
                                 "       e.joined_at < r.opens_at "
                                 "  FROM waiting_room_entries e JOIN waiting_rooms r USING (show_id) WHERE e.show_id = ?"));
    query.addBindValue(showId);
    if (!query.exec()) {
        out << "  query failed: " << query.lastError().text() << "\n";
        return false;
    }
    std::vector<std::pair<qint64, qint64>> byRank, lateByArrival;
    std::vector<std::pair<qint64, qint64>> earlyArrivalRank; // entry id, rank
    while (query.next()) {
        const qint64 entry = query.value(0).toLongLong();
        const qint64 rank = query.value(1).isNull() ? std::numeric_limits<qint64>::max() : query.value(1).toLongLong();
        const qint64 admittedMs = query.value(2).toLongLong();
        byRank.emplace_back(rank, admittedMs);
        if (query.value(3).toBool())
            earlyArrivalRank.emplace_back(entry, rank);
        else
            lateByArrival.emplace_back(entry, admittedMs);
    }
    report->outOfQueueOrderShare = outOfOrderShare(byRank);
    report->lateOutOfArrivalShare = outOfOrderShare(lateByArrival);
    if (earlyArrivalRank.size() > 1) {
        // Spearman's rho between arrival position and the rank order among the early arrivals.
        std::sort(earlyArrivalRank.begin(), earlyArrivalRank.end());
        std::vector<size_t> byRankOrder(earlyArrivalRank.size());
        std::iota(byRankOrder.begin(), byRankOrder.end(), 0);
        std::sort(byRankOrder.begin(), byRankOrder.end(),
                  [&](size_t a, size_t b) { return earlyArrivalRank[a].second < earlyArrivalRank[b].second; });
        double sumSquares = 0;
        for (size_t rankPosition = 0; rankPosition < byRankOrder.size(); ++rankPosition)
            sumSquares += std::pow(double(rankPosition) - double(byRankOrder[rankPosition]), 2);
        const double n = double(earlyArrivalRank.size());
        report->earlyRankRho = 1 - 6 * sumSquares / (n * (n * n - 1));
    }
    out << QStringLiteral("  fairness: %1 entries; admitted out of queue order %2; arrivals after the opening admitted before an "
                          "earlier arrival %3; %4 early arrivals shuffled, rank vs arrival rho %5\n")
               .arg(byRank.size())
               .arg(report->outOfQueueOrderShare, 0, 'f', 4)
               .arg(report->lateOutOfArrivalShare, 0, 'f', 4)
               .arg(earlyArrivalRank.size())
               .arg(report->earlyRankRho, 0, 'f', 3);
    line(QStringLiteral("admission follows the queue"), report->outOfQueueOrderShare == 0,
         QStringLiteral("share admitted before someone ahead: %1").arg(report->outOfQueueOrderShare));
    if (soldOut && !soldOutNotices.empty()) {
        std::vector<qint64> lags;
        for (const auto &[entry, seenMs] : soldOutNotices)
            lags.push_back(std::max<qint64>(0, seenMs - std::max(soldOutAtMs, startedWallMs)));
        std::sort(lags.begin(), lags.end());
        out << QStringLiteral("  sold-out notice: %1 waiting users told; lag after sell-out p50 %2 ms, p99 %3 ms, max %4 ms\n")
                   .arg(lags.size())
                   .arg(lags[lags.size() / 2])
                   .arg(lags[std::min(lags.size() - 1, lags.size() * 99 / 100)])
                   .arg(lags.back());
    }
    return allOk;
}

} // namespace marquee::bench
