// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "http/router.h"

#include <QDateTime>
#include <QUrlQuery>

namespace marquee {
struct ServerContext;
}

namespace marquee::http {

/** @brief /healthz and /readyz. */
void registerHealthRoutes(Router &router, ServerContext &context);
/** @brief POST /api/v1/sessions (staff sign-in). */
void registerSessionRoutes(Router &router, ServerContext &context);
/** @brief Cities, movies, shows and seat maps. */
void registerCatalogRoutes(Router &router, ServerContext &context);
/** @brief Placing, reading and releasing holds. */
void registerHoldRoutes(Router &router, ServerContext &context);

/** @brief POST /api/v1/shows and PATCH /api/v1/shows/{id} (manager and admin). */
void registerShowRoutes(Router &router, ServerContext &context);
/** @brief POST /api/v1/devices/heartbeat (kiosk and till) and GET /api/v1/devices (the fleet, managers). */
void registerDeviceRoutes(Router &router, ServerContext &context);
/** @brief POST /api/v1/devices/pair (public, throttled): a one-time pairing code for the device's token. */
void registerPairingRoutes(Router &router, ServerContext &context);
/** @brief GET /api/v1/venue-ca (public): the venue CA's PEM, which a pairing device checks against its fingerprint. */
void registerVenueCaRoutes(Router &router, ServerContext &context);
/** @brief GET /api/v1/reports/audit, the audit log page by page (manager and admin). */
void registerAuditRoutes(Router &router, ServerContext &context);

/** @brief GET /api/v1/keys (public) and GET /api/v1/revocations. */
void registerTicketRoutes(Router &router, ServerContext &context);
/** @brief POST /api/v1/checkin. */
void registerCheckinRoutes(Router &router, ServerContext &context);
/** @brief GET /api/v1/events, the outbox feed. */
void registerEventRoutes(Router &router, ServerContext &context);
/**
 * @brief Read `after` (cursor >= 0, default 0) and `limit` (1..@p maxLimit, default @p defaultLimit) from the
 * query string; the error to send when either is malformed.
 */
std::optional<ApiError> parseCursorQuery(const QHttpServerRequest &request, qint64 *after, int *limit, int defaultLimit, int maxLimit);

/** @brief POST /api/v1/orders, GET /api/v1/orders/{id}, POST /api/v1/orders/{id}/confirm. */
void registerOrderRoutes(Router &router, ServerContext &context);
/** @brief GET /api/v1/bookings/{id}, GET /api/v1/bookings?ref=, POST /api/v1/bookings/{id}/cancel. */
void registerBookingRoutes(Router &router, ServerContext &context);
/** @brief POST /webhooks/payment (public, HMAC-signed). */
void registerWebhookRoutes(Router &router, ServerContext &context);

/** @brief The virtual waiting room: join, status, and the manager's switch (PUT /api/v1/shows/{id}/waiting-room). */
void registerQueueRoutes(Router &router, ServerContext &context);
/** @brief GET /api/v1/reports/sales, /occupancy, /shifts, /refunds and /reconciliation (manager and admin). */
void registerReportRoutes(Router &router, ServerContext &context);
/** @brief Till shifts and the cash drawer: POST /api/v1/shifts, /current, /current/drawer, /current/close. */
void registerShiftRoutes(Router &router, ServerContext &context);
/**
 * @brief Seat-block leases: POST/GET /api/v1/shows/{id}/leases, GET/DELETE /api/v1/leases/{id}, POST
 * /api/v1/leases/{id}/sales, GET/PUT /api/v1/shows/{id}/lease-settings.
 */
void registerLeaseRoutes(Router &router, ServerContext &context);
/** @brief House holds: seats a manager keeps off sale (POST/GET /api/v1/shows/{id}/house-holds, DELETE /api/v1/house-holds/{id}). */
void registerHouseHoldRoutes(Router &router, ServerContext &context);
/**
 * @brief Read `from` and `to` (a date YYYY-MM-DD — `to` inclusive — or an ISO 8601 time) from a report's query
 * string; absent, the last @p defaultDays days. The error to send when malformed, reversed or over three years.
 */
std::optional<ApiError> parseTimeRange(const QUrlQuery &query, QDateTime *from, QDateTime *to, int defaultDays);

/** @brief POST /api/v1/sync/batch: a device's queued holds, check-ins and confirms, many per request. */
void registerSyncRoutes(Router &router, ServerContext &context);

/** @brief 400 with @p code and @p message: the request is malformed, nothing was changed. */
HttpResponse invalidRequest(const QString &code, const QString &message);
/** @brief 503: the booking database did not answer, nothing was changed (the show, device and audit routes). */
HttpResponse bookingDatabaseUnavailable();

/** @brief Every route of the server, registered in one place. */
void registerAllRoutes(Router &router, ServerContext &context);

} // namespace marquee::http
