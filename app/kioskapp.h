// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "appconfig.h"
#include "devicecredentials.h"

#include <optional>

namespace marquee::app {

/**
 * @brief Makes glibc's malloc use one arena for all threads. Call first in main, before any thread starts.
 *
 * Otherwise each thread that allocates (the scene graph's render thread, network and SQLite threads) gets its own
 * arena of up to 64 MB that keeps what it freed. On a kiosk drawing through a software GL driver (Mesa llvmpipe),
 * one arena took the 40,000-seat map's resident peak from about 304 MB to 280 MB (marquee-appbench --memory-only;
 * docs/perf/journal.md, "the 40,000-seat seat map");
 * small allocations still go through each thread's lock-free cache. MALLOC_ARENA_MAX in the environment wins.
 */
void limitMallocArenas();

/**
 * @brief The first-run pairing screen (Pairing/PairingMain.qml) for @p config, run until the device is paired and the
 * screen is left (or the window is closed: then std::nullopt). The credentials are saved by then.
 */
std::optional<DeviceCredentials> runPairingScreen(const AppConfig &config);

/** @brief The whole app: parse options, load Marquee.Ui/Main, run (or walk the flow with --headless). */
int runApp(int argc, char **argv);

} // namespace marquee::app
