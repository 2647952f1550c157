// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QString>
#include <string>
#include <vector>

namespace marquee::bench {

/** @brief A hold the server granted (HTTP 200), as the client saw it. */
struct Grant {
    std::string holdId;
    std::vector<std::string> seats;
    qint64 receivedMs = 0; ///< wall clock when the answer arrived
    qint64 expiresMs = 0;  ///< the server's expires_at (truncated to milliseconds)
};

/**
 * @brief Checks, after a holds run, that the server's own data and the answers agree:
 *  1. no seat of the show is in two live holds (holds table);
 *  2. the seats marked held in show_seats are exactly the seats of the live holds, hold by hold;
 *  3. every granted hold_id exists with exactly the seats the client was told;
 *  4. (client side) no seat was granted to two clients while the first grant was still live;
 *  5. the number of holds the database created for the show since @p sinceDbTime equals the number of 200s
 *     (strict only when nothing else writes to the show meanwhile, as in scripts/bench-holds).
 * Prints one line per check; true when all pass.
 */
class InvariantChecker
{
public:
    explicit InvariantChecker(QString databaseUrl);
    bool open(QString *error);
    /** @brief The database's clock now (ISO text), taken before the run for check 5. */
    QString databaseNow();
    bool check(qint64 showId, const std::vector<Grant> &grants, const QString &sinceDbTime);

private:
    QString m_url;
    QString m_connection;
};

} // namespace marquee::bench
