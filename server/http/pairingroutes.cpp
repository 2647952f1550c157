// SPDX-License-Identifier: AGPL-3.0-or-later
// POST /api/v1/devices/pair: a device trades the one-time code marquee-admin device add --pairing printed for its
// token (PairingService). Public: the device has no token yet.
#include "core/errorcatalogue.h"
#include "core/jsonbody.h"
#include "http/routes.h"
#include "runtime/servercontext.h"
#include "runtime/venuetls.h"

#include <QFile>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {
// The one place the pairing outcome becomes HTTP: the device with its token, or a Refusal through the catalogue.
HttpResponse answer(const PairedDevice &device, const ServerConfig &config)
{
    QJsonObject body{{QStringLiteral("device_id"), device.deviceId},
                     {QStringLiteral("name"), device.name},
                     {QStringLiteral("role"), device.role},
                     {QStringLiteral("token"), device.token}};
    // The venue CA's fingerprint, read as the file is now: the device pins it for the venue's HTTPS from here on.
    QFile ca(config.venueCaFile);
    if (!config.venueCaFile.isEmpty() && ca.open(QIODevice::ReadOnly))
        body.insert(QStringLiteral("venue_ca_fingerprint"), VenueTls::fingerprint(ca.readAll()));
    return HttpResponse::json(201, body);
}
HttpResponse answer(const Refusal &refusal, const ServerConfig &)
{
    return HttpResponse::error(apiError(refusal));
}
} // namespace

void registerPairingRoutes(Router &router, ServerContext &context)
{
    router.addJson(Method::Post, QStringLiteral("/api/v1/devices/pair"), Access::anyone(), [&context](RequestContext &request, const QJsonObject &body) {
        const auto code = requiredString(body, QStringLiteral("code"), 32);
        if (isError(code))
            return HttpResponse::error(std::get<ApiError>(code));
        const QString address = context.config.trustedProxies.clientAddress(request.request).toString();
        return std::visit([&context](const auto &value) { return answer(value, context.config); },
                          context.pairing.pair(std::get<QString>(code), address));
    });
}

} // namespace marquee::http
