// SPDX-License-Identifier: AGPL-3.0-or-later
#include "loadstats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>

namespace marquee::bench {

void Stats::merge(const Stats &other)
{
    latencyUs.insert(latencyUs.end(), other.latencyUs.begin(), other.latencyUs.end());
    for (const auto &[status, count] : other.statuses)
        statuses[status] += count;
    bytesIn += other.bytesIn;
    unmeasured += other.unmeasured;
    for (const auto &[status, latencies] : other.latencyUsByStatus)
        latencyUsByStatus[status].insert(latencyUsByStatus[status].end(), latencies.begin(), latencies.end());
    serverTotalUs.insert(serverTotalUs.end(), other.serverTotalUs.begin(), other.serverTotalUs.end());
    for (const auto &[status, latencies] : other.serverTotalUsByStatus)
        serverTotalUsByStatus[status].insert(serverTotalUsByStatus[status].end(), latencies.begin(), latencies.end());
    serverQueueUs.insert(serverQueueUs.end(), other.serverQueueUs.begin(), other.serverQueueUs.end());
    serverDbUs.insert(serverDbUs.end(), other.serverDbUs.begin(), other.serverDbUs.end());
    serverFromMemory += other.serverFromMemory;
    m_sorted = false;
}

double Stats::percentileMs(std::vector<uint32_t> &latencies, double p)
{
    if (latencies.empty())
        return 0;
    std::sort(latencies.begin(), latencies.end());
    const size_t rank = size_t(std::ceil(p / 100.0 * double(latencies.size())));
    return latencies[std::clamp<size_t>(rank, 1, latencies.size()) - 1] / 1000.0;
}

void Stats::recordServerTiming(int status, std::string_view serverTiming)
{
    if (serverTiming.empty())
        return;
    // Server-Timing: total;dur=1.234, memory;dur=0.01 | total;dur=…, queue;dur=…, db;dur=… (milliseconds)
    auto durationUs = [&](std::string_view metric) -> std::optional<uint32_t> {
        const std::string needle = std::string(metric) + ";dur=";
        size_t at = serverTiming.find(needle);
        if (at == std::string_view::npos || (at > 0 && serverTiming[at - 1] != ' ' && serverTiming[at - 1] != ','))
            return std::nullopt;
        const double ms = std::strtod(std::string(serverTiming.substr(at + needle.size(), 16)).c_str(), nullptr);
        return uint32_t(std::max(0.0, ms * 1000.0));
    };
    if (const auto total = durationUs("total")) {
        serverTotalUs.push_back(*total);
        serverTotalUsByStatus[status].push_back(*total);
    }
    if (const auto queue = durationUs("queue"))
        serverQueueUs.push_back(*queue);
    if (const auto db = durationUs("db"))
        serverDbUs.push_back(*db);
    if (durationUs("memory"))
        ++serverFromMemory;
}

double Stats::percentileMs(double p)
{
    if (latencyUs.empty())
        return 0;
    if (!m_sorted) {
        std::sort(latencyUs.begin(), latencyUs.end());
        m_sorted = true;
    }
    // Nearest-rank: the smallest value with at least p of the samples at or below it.
    const size_t rank = size_t(std::ceil(p / 100.0 * double(latencyUs.size())));
    return latencyUs[std::clamp<size_t>(rank, 1, latencyUs.size()) - 1] / 1000.0;
}

double Stats::maxMs()
{
    return percentileMs(100);
}

double Stats::meanMs() const
{
    if (latencyUs.empty())
        return 0;
    return std::accumulate(latencyUs.begin(), latencyUs.end(), 0.0) / double(latencyUs.size()) / 1000.0;
}

QString Stats::report(const QString &title)
{
    QString out = QStringLiteral("== %1 ==\n").arg(title);
    out += QStringLiteral("  answers      %1 in %2 s  →  %3 req/s\n").arg(count()).arg(windowSeconds, 0, 'f', 1).arg(rate(), 0, 'f', 0);
    out += QStringLiteral("  latency ms   p50 %1  p95 %2  p99 %3  max %4  mean %5\n")
               .arg(percentileMs(50), 0, 'f', 2)
               .arg(percentileMs(95), 0, 'f', 2)
               .arg(percentileMs(99), 0, 'f', 2)
               .arg(maxMs(), 0, 'f', 2)
               .arg(meanMs(), 0, 'f', 2);
    out += QStringLiteral("  status      ");
    for (const auto &[status, n] : statuses)
        out += QStringLiteral(" %1×%2").arg(status == 0 ? QStringLiteral("conn-error") : QString::number(status)).arg(n);
    out += QStringLiteral("\n  received     %1 MB/s\n").arg(windowSeconds > 0 ? bytesIn / windowSeconds / 1e6 : 0, 0, 'f', 1);
    for (auto &[status, latencies] : latencyUsByStatus) {
        if (latencyUsByStatus.size() > 1)
            out += QStringLiteral("  client %1    p50 %2  p99 %3 ms\n").arg(status).arg(percentileMs(latencies, 50), 0, 'f', 2).arg(percentileMs(latencies, 99), 0, 'f', 2);
    }
    if (!serverTotalUs.empty()) {
        out += QStringLiteral("  server       p50 %1  p99 %2 ms (Server-Timing, parsed request to answer)\n")
                   .arg(percentileMs(serverTotalUs, 50), 0, 'f', 2)
                   .arg(percentileMs(serverTotalUs, 99), 0, 'f', 2);
        for (auto &[status, latencies] : serverTotalUsByStatus)
            out += QStringLiteral("  server %1    p50 %2  p99 %3 ms\n").arg(status).arg(percentileMs(latencies, 50), 0, 'f', 2).arg(percentileMs(latencies, 99), 0, 'f', 2);
        out += QStringLiteral("  from memory  %1 of %2 answers; through PostgreSQL: queue p50 %3 p99 %4 ms, transaction p50 %5 p99 %6 ms\n")
                   .arg(serverFromMemory)
                   .arg(serverTotalUs.size())
                   .arg(percentileMs(serverQueueUs, 50), 0, 'f', 2)
                   .arg(percentileMs(serverQueueUs, 99), 0, 'f', 2)
                   .arg(percentileMs(serverDbUs, 50), 0, 'f', 2)
                   .arg(percentileMs(serverDbUs, 99), 0, 'f', 2);
    }
    return out;
}

QString Stats::resultLine(const QString &scenario)
{
    QString line = QStringLiteral("RESULT scenario=%1 rate=%2 p50_ms=%3 p95_ms=%4 p99_ms=%5 max_ms=%6 n=%7")
                       .arg(scenario)
                       .arg(rate(), 0, 'f', 1)
                       .arg(percentileMs(50), 0, 'f', 3)
                       .arg(percentileMs(95), 0, 'f', 3)
                       .arg(percentileMs(99), 0, 'f', 3)
                       .arg(maxMs(), 0, 'f', 3)
                       .arg(count());
    // Bytes per answer (head and body as sent): tells a compressed or compact body from a full one.
    line += QStringLiteral(" bytes_per_answer=%1").arg(count() > 0 ? double(bytesIn) / double(count()) : 0, 0, 'f', 0);
    for (const auto &[status, n] : statuses)
        line += QStringLiteral(" s%1=%2").arg(status).arg(n);
    for (auto &[status, latencies] : latencyUsByStatus)
        line += QStringLiteral(" p50_s%1_ms=%2 p99_s%1_ms=%3").arg(status).arg(percentileMs(latencies, 50), 0, 'f', 3).arg(percentileMs(latencies, 99), 0, 'f', 3);
    if (!serverTotalUs.empty()) {
        line += QStringLiteral(" srv_p50_ms=%1 srv_p99_ms=%2").arg(percentileMs(serverTotalUs, 50), 0, 'f', 3).arg(percentileMs(serverTotalUs, 99), 0, 'f', 3);
        for (auto &[status, latencies] : serverTotalUsByStatus)
            line += QStringLiteral(" srv_p99_s%1_ms=%2").arg(status).arg(percentileMs(latencies, 99), 0, 'f', 3);
        line += QStringLiteral(" srv_queue_p50_ms=%1 srv_queue_p99_ms=%2 srv_db_p50_ms=%3 srv_db_p99_ms=%4 srv_memory_share=%5")
                    .arg(percentileMs(serverQueueUs, 50), 0, 'f', 3)
                    .arg(percentileMs(serverQueueUs, 99), 0, 'f', 3)
                    .arg(percentileMs(serverDbUs, 50), 0, 'f', 3)
                    .arg(percentileMs(serverDbUs, 99), 0, 'f', 3)
                    .arg(double(serverFromMemory) / double(serverTotalUs.size()), 0, 'f', 3);
    }
    return line;
}

} // namespace marquee::bench
