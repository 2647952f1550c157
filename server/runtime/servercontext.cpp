// SPDX-License-Identifier: AGPL-3.0-or-later
#include "runtime/servercontext.h"

namespace marquee {

ServerContext::ServerContext(ServerConfig config_, store::DatabaseConfig databaseConfig)
    : config(std::move(config_))
    , database(std::move(databaseConfig))
    , databaseWatchdog(database, config.databaseStatementTimeoutMs, config.databaseSilenceMs)
    , auth(database, 10, config.sessionIdleSeconds)
    , catalog(database)
    , holds(database, config.asyncHoldCommit)
    , tickets(database)
    , events(database)
    , seatMaps(catalog)
    , orders(database)
    , payments(database)
    , bookings(database, tickets)
    , orderService(config.payments, orders, payments, bookings)
    , leases(database, tickets)
    , leaseService(store::LeaseDefaults{config.leaseSeatsPerDevice, config.leaseReturnBeforeSeconds, config.leaseGraceSeconds}, config.payments,
                   leases, orders, bookings)
    , pairings(database)
    , pairing(pairings, database,
              PairingService::Limits{config.pairingFailuresFleetWide, config.pairingFailuresPerAddress, config.signInLockoutSeconds})
    , waitingRooms(database)
    , waitingRoom(waitingRooms, database, config.waitingRoomTickMs, config.waitingRoomThreshold)
    , holdService(HoldService::Settings{config.holdTtlSeconds, config.fastRefusals, config.fastRefusalMaxAgeMs, config.holdBatches,
                                        config.holdBatchSize, config.maxHeldSeatsKiosk, config.maxHeldSeatsTill, config.maxHeldSeatsStaff},
                  holds, seatMaps, waitingRoom)
    , occupancyReports(database)
    , tokenRateLimiter(config.rateLimitPerToken)
    , addressRateLimiter(config.rateLimitPerAddress)
    , connections(config.maxConnections, config.maxConnectionsPerAddress, config.trustedProxies)
    , passwordHashing(database, this->config.passwordThreads, QStringLiteral("passwords"))
    , paymentCalls(database, payments::PaymentCallThreads::kDefaultThreads)
{
    database.setWatchdog(&databaseWatchdog);
    waitingRoom.setBoxOfficeHoldLimit(this->config.boxOfficeHoldsPerCaller);
    waitingRoom.setMaxPollMs(this->config.waitingRoomMaxPollMs);
}

} // namespace marquee
