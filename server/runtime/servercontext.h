// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "devices/pairingservice.h"
#include "holds/holdservice.h"
#include "leases/leaseservice.h"
#include "orders/orderservice.h"
#include "orders/paymentcallthreads.h"
#include "protection/connectionlimiter.h"
#include "protection/ratelimiter.h"
#include "reports/occupancyreports.h"
#include "runtime/serverconfig.h"
#include "seating/seatmapservice.h"
#include "store/authrepository.h"
#include "store/bookingrepository.h"
#include "store/catalogrepository.h"
#include "store/database.h"
#include "store/databasewatchdog.h"
#include "store/eventrepository.h"
#include "store/holdrepository.h"
#include "store/leaserepository.h"
#include "store/orderrepository.h"
#include "store/pairingrepository.h"
#include "store/paymentrepository.h"
#include "store/ticketrepository.h"
#include "store/waitingroomrepository.h"
#include "waitingroom/waitingroomservice.h"


namespace marquee {

/**
 * @brief The services one server process shares between its worker threads. Repositories are thread-safe:
 * they hold no connection, only the Database that hands each thread its own.
 */
struct ServerContext {
    ServerContext(ServerConfig config, store::DatabaseConfig databaseConfig);

    ServerConfig config;
    store::Database database;
    /** @brief Notices a database that stopped answering: requests then fail fast (503) instead of hanging. */
    store::DatabaseWatchdog databaseWatchdog;
    store::AuthRepository auth;
    store::CatalogRepository catalog;
    store::HoldRepository holds;
    store::TicketRepository tickets;
    store::EventRepository events;
    SeatMapService seatMaps;
    store::OrderRepository orders;
    store::PaymentRepository payments;
    store::BookingRepository bookings;
    payments::OrderService orderService;
    store::LeaseRepository leases;
    /** @brief Seat-block leases and the sales tills report under them (server/leases). */
    LeaseService leaseService;
    store::PairingRepository pairings;
    /** @brief Devices trading a one-time pairing code for their token, throttled like sign-in (server/devices). */
    PairingService pairing;
    store::WaitingRoomRepository waitingRooms;
    WaitingRoomService waitingRoom;
    /** @brief The hold use case (admission, refusals from memory, group commit, replay, seat-map notes). Declared
     * after everything its answers touch (the waiting room's admissions, the seat maps), so that it is destroyed
     * first: its batcher still decides and answers what is queued. */
    HoldService holdService;
    OccupancyReports occupancyReports;
    /** @brief Protection (rate and connection limits), shared by every worker thread; all decided without the
     *  database. */
    protection::RateLimiter tokenRateLimiter;
    protection::RateLimiter addressRateLimiter;
    protection::ConnectionLimiter connections;
    /**
     * @brief Threads that hash sign-in passwords (PBKDF2, deliberately slow): an unauthenticated flood of sign-ins
     * waits here, never on an HTTP worker, so every other request keeps its pace.
     */
    payments::PaymentCallThreads passwordHashing;
    /**
     * @brief Threads for requests that call a payment provider (http::answerPaymentCall), so that a slow provider
     * never blocks a worker's other connections. Last member: destroyed first, finishing the calls queued and in
     * progress while everything they use still exists.
     */
    payments::PaymentCallThreads paymentCalls;
};

} // namespace marquee
