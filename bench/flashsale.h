// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "loadengine.h"

#include <QString>
#include <memory>
#include <string>
#include <vector>

namespace marquee::bench {

/** @brief Settings of the flash-sale scenario. */
struct FlashSaleOptions {
    qint64 showId = 0;
    int users = 10000;
    int serverClients = 64;          ///< keep-alive connections to the server (users share them)
    int paysimClients = 8;           ///< connections to marquee-paysim (the card terminal)
    std::vector<std::string> tokens; ///< device tokens; user i acts through tokens[i % n]
    std::string managerToken;        ///< when set: switch the room on (opening after openAfterSeconds)
    double openAfterSeconds = 5;
    double arrivalSeconds = 0;       ///< users arrive spread evenly over this (0: all at once)
    int admissionTtlSeconds = 600;
    double minAdmitPerSecond = 50;
    int maxInFlight = 2000;
    int groupMin = 1;
    int groupMax = 4;
    int maxPollMs = 0;               ///< the longest a user waits between polls, whatever the server suggests; 0: as it suggests
    /// Connections reserved for long polls (status with wait=): a user whose eta is within longPollSeconds parks a
    /// status request there and learns of its admission at once. 0: plain polling only.
    int longPollClients = 0;
    int longPollSeconds = 20;
    QString paysimHost = QStringLiteral("127.0.0.1");
    quint16 paysimPort = 0;
    double timeoutSeconds = 600;
    QString databaseUrl;             ///< the server's database, for fairness, sell-out time and invariants
    uint64_t seed = 1;
};

/**
 * @brief The flash-sale scenario: users join the waiting room, poll as the server suggests, are
 * admitted, hold 1-4 adjacent seats (retrying with a fresh seat map on 409), pay through marquee-paysim and
 * confirm. Runs to the end (every user bought, was told the show is sold out, or gave up) and prints throughput,
 * latencies per step, time to sell out, fairness and the invariant check. Returns the exit status (0 ok,
 * 1 an invariant or the sale failed, 2 set-up failure).
 */
int runFlashSale(const EngineOptions &engine, const FlashSaleOptions &options);

} // namespace marquee::bench
