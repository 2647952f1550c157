// SPDX-License-Identifier: AGPL-3.0-or-later
#include "http/routes.h"

namespace marquee::http {

HttpResponse invalidRequest(const QString &code, const QString &message)
{
    return HttpResponse::error(ApiError::badRequest(code, message));
}

HttpResponse bookingDatabaseUnavailable()
{
    return HttpResponse::error(ApiError::unavailable(QStringLiteral("The booking database is not answering; nothing was changed.")));
}

void registerAllRoutes(Router &router, ServerContext &context)
{
    registerHealthRoutes(router, context);
    registerSessionRoutes(router, context);
    registerCatalogRoutes(router, context);
    registerShowRoutes(router, context);
    registerHoldRoutes(router, context);
    registerHouseHoldRoutes(router, context);
    registerLeaseRoutes(router, context);
    registerOrderRoutes(router, context);
    registerBookingRoutes(router, context);
    registerWebhookRoutes(router, context);
    registerTicketRoutes(router, context);
    registerCheckinRoutes(router, context);
    registerSyncRoutes(router, context);
    registerEventRoutes(router, context);
    registerDeviceRoutes(router, context);
    registerPairingRoutes(router, context);
    registerVenueCaRoutes(router, context);
    registerQueueRoutes(router, context);
    registerReportRoutes(router, context);
    registerAuditRoutes(router, context);
    registerShiftRoutes(router, context);
}

} // namespace marquee::http
