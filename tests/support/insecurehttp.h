// SPDX-License-Identifier: AGPL-3.0-or-later
// The app as started with --allow-insecure-http, for the UI tests of its warning banner.
#pragma once

#include "quickitems.h"
#include "screenshots.h"
#include "sync/transportsecurity.h"

namespace marquee::test {

/** @brief While it lives, the process's transport policy allows plain http (as --allow-insecure-http does). */
class InsecureHttpAllowed
{
public:
    InsecureHttpAllowed()
        : m_before(sync::TransportPolicy::current())
    {
        sync::TransportPolicy insecure = m_before;
        insecure.allowInsecureHttp = true;
        sync::TransportPolicy::install(insecure);
    }
    ~InsecureHttpAllowed() { sync::TransportPolicy::install(m_before); }
    InsecureHttpAllowed(const InsecureHttpAllowed &) = delete;
    InsecureHttpAllowed &operator=(const InsecureHttpAllowed &) = delete;

    /** @brief The warning as this run's language has it (ask once a controller has installed that language). */
    static QString warning()
    {
        return shown("marquee::app::TransportStatus", "Insecure connection: this device may talk to the server without encryption "
                                                      "(--allow-insecure-http). Staff: use https:// with the venue certificate.");
    }
    /** @brief The text of the warning banner on @p window (empty when there is none). */
    static QString bannerText(QQuickWindow *window)
    {
        QQuickItem *banner = itemNamed(window, QStringLiteral("insecureBanner"));
        return banner ? banner->property("text").toString() : QString();
    }

private:
    sync::TransportPolicy m_before;
};

} // namespace marquee::test
