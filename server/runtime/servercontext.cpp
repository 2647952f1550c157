// SPDX-License-Identifier: AGPL-3.0-or-later
#include "runtime/servercontext.h"

namespace marquee {

ServerContext::ServerContext(ServerConfig config_, store::DatabaseConfig databaseConfig)
    : config(std::move(config_))
    , database(std::move(databaseConfig))
    , auth(database, 10, config.sessionIdleSeconds)
    , catalog(database)
    , holds(database, config.asyncHoldCommit)
    , tickets(database)
    , events(database)
    , seatMaps(catalog)
    , holdFastPath(seatMaps, holds, config.fastRefusals, config.fastRefusalMaxAgeMs)
    , orders(database)
    , payments(database)
    , bookings(database, tickets)
    , orderService(config.payments, orders, payments, bookings)
    , waitingRooms(database)
    , waitingRoom(waitingRooms, database, config.waitingRoomTickMs, config.waitingRoomThreshold)
    , holdBatcher(holds, config.holdBatches,
                  [this](qint64 showId, const store::HoldRepository::HoldRequest &request) -> std::optional<store::HoldOutcome> {
                      const auto refusal = holdFastPath.refuseQueued(showId, request.owner, request.idempotencyKey, request.requestHash,
                                                                     request.seatIds, request.keyFresh);
                      if (!refusal)
                          return std::nullopt;
                      return store::HoldOutcome{true, refusal->status, refusal->body};
                  },
                  config.holdBatchSize)
    , occupancyReports(database)
    , tokenRateLimiter(config.rateLimitPerToken)
    , addressRateLimiter(config.rateLimitPerAddress)
    , connections(config.maxConnections, config.maxConnectionsPerAddress, config.trustedProxies)
    , passwordHashing(database, this->config.passwordThreads, QStringLiteral("passwords"))
    , paymentCalls(database, payments::PaymentCallThreads::kDefaultThreads)
{
    waitingRoom.setBoxOfficeHoldLimit(this->config.boxOfficeHoldsPerCaller);
    waitingRoom.setMaxPollMs(this->config.waitingRoomMaxPollMs);
}

} // namespace marquee
