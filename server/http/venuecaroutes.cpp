// SPDX-License-Identifier: AGPL-3.0-or-later
// GET /api/v1/venue-ca: the venue CA certificate (--venue-ca-file) as PEM, for a device that is about to pair. Public
// and unauthenticated on purpose: a device has no trust anchor yet, so it fetches this over a connection it cannot
// verify and trusts the certificate only when its SHA-256 equals the fingerprint the operator gave it (marquee-admin
// device add --pairing and tls show print it). The certificate is no secret.
#include "http/routes.h"
#include "runtime/servercontext.h"
#include "runtime/venuetls.h"

#include <QFile>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

void registerVenueCaRoutes(Router &router, ServerContext &context)
{
    router.add(Method::Get, QStringLiteral("/api/v1/venue-ca"), Access::anyone().answeredWithoutDatabase(), [&context](RequestContext &) {
        const QString path = context.config.venueCaFile;
        QFile file(path);
        // Read on every request (a few hundred bytes): a CA file replaced on disk is served at once.
        const QByteArray pem = !path.isEmpty() && file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        if (VenueTls::fingerprint(pem).isEmpty())
            return HttpResponse::error(ApiError::notFound(QStringLiteral("venue_ca_not_configured"),
                                                          QStringLiteral("This server has no venue CA (marquee-server --venue-ca-file); pair over "
                                                                         "https with the system's CAs or give the app --ca-file.")));
        HttpResponse response;
        response.status = 200;
        response.body = pem;
        response.contentType = "application/x-pem-file";
        return response;
    });
}

} // namespace marquee::http
