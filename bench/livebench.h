// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "loadengine.h"

#include <QTextStream>

namespace marquee::bench {

/** @brief Settings of the `live` scenario (delta latency to many WebSocket subscribers). */
struct LiveBenchOptions {
    qint64 showId = 0;
    std::string token;       ///< subscribers and the writer use it
    int subscribers = 1000;
    int changes = 200;       ///< holds the writer makes, one seat each, one after the other
    int intervalMs = 50;     ///< pause between the writer's holds
};

/**
 * @brief Open @p options.subscribers WebSocket subscriptions to the show's live feed (raw sockets on one epoll
 * thread, frames parsed in place: the client costs a few microseconds per message), then hold single seats one
 * after the other over HTTP, then release them one after the other, and measure, for every subscriber, the time
 * from sending each write to receiving the delta that names its seat as held (resp. available). Also prints how
 * long messages waited inside the client itself. Prints percentiles and a `RESULT` line; returns the exit status
 * (1 when a subscriber missed a change or was closed).
 */
int runLiveBench(const EngineOptions &engine, const LiveBenchOptions &options, QTextStream &out, QTextStream &err);

} // namespace marquee::bench
