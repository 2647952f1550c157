// SPDX-License-Identifier: AGPL-3.0-or-later
#include "invariants.h"

#include "store/databaseconfig.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTextStream>
#include <algorithm>
#include <unordered_map>

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
