// SPDX-License-Identifier: AGPL-3.0-or-later
// Another marquee-server instance in the test process, on the database of a TestServer (tst_waitingroom.cpp,
// tst_coherence.cpp). Header-only.
#pragma once

#include "testserver.h"

#include <functional>
#include <gtest/gtest.h>
#include <memory>

namespace marquee::test {

/**
 * @brief A second marquee-server on the same database (another instance, or the same one after a restart), with
 * the first one's data directory: every server of one database needs the same key-encryption key. @p configure
 * changes its configuration before it starts.
 */
inline std::unique_ptr<MarqueeServer> instanceOn(const TestServer &first, const std::function<void(ServerConfig &)> &configure = {})
{
    ServerConfig config;
    config.listenAddress = QHostAddress::LocalHost;
    config.listenPort = 0;
    config.threads = 2;
    config.databaseUrl = first.databaseUrl();
    config.dataDirectory = first.dataDirectory();
    config.reconcilerIntervalMs = 0;
    if (configure)
        configure(config);
    auto instance = std::make_unique<MarqueeServer>(config);
    if (!instance->start())
        ADD_FAILURE() << "second instance did not start: " << instance->errorString().toStdString();
    return instance;
}

} // namespace marquee::test
