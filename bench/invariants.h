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

/** @brief What the flash-sale check measured in the server's data. */
struct SaleReport {
    double sellOutSeconds = -1;        ///< from the room's opening to its sold_out_at (-1: not sold out)
    double outOfQueueOrderShare = 0;   ///< admitted users admitted before someone ahead of them in the queue
    double lateOutOfArrivalShare = 0;  ///< users who joined after the opening, admitted before an earlier arrival
    double earlyRankRho = 0;           ///< Spearman rho of arrival order and rank among the shuffled early arrivals
    qint64 oversold = 0;               ///< seats booked beyond the show's seats or twice
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
    /**
     * @brief After a flash sale: seats booked = seats of confirmed bookings = seats the clients were sold, no seat
     * sold twice, no oversell, the show sold out with every still-waiting user told so; fills @p report (sell-out
     * time, fairness) from the waiting room's entries. @p soldOutNotices: (entry id, wall ms the user saw sold_out).
     */
    bool checkSale(qint64 showId, const std::vector<std::string> &clientSeats, const std::vector<std::pair<qint64, qint64>> &soldOutNotices,
                   qint64 startedWallMs, SaleReport *report);

private:
    QString m_url;
    QString m_connection;
};

} // namespace marquee::bench
