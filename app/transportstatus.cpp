// SPDX-License-Identifier: AGPL-3.0-or-later
#include "transportstatus.h"

#include "sync/transportsecurity.h"

namespace marquee::app {

TransportStatus::TransportStatus(QObject *parent)
    : QObject(parent)
{
}

bool TransportStatus::insecure() const
{
    return sync::TransportPolicy::current().allowInsecureHttp;
}

QString TransportStatus::warning() const
{
    return tr("Insecure connection: this device may talk to the server without encryption (--allow-insecure-http). "
              "Staff: use https:// with the venue certificate.");
}

} // namespace marquee::app
