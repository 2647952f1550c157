// SPDX-License-Identifier: AGPL-3.0-or-later
#include "loadstats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace marquee::bench {

void Stats::merge(const Stats &other)
{
    latencyUs.insert(latencyUs.end(), other.latencyUs.begin(), other.latencyUs.end());
    for (const auto &[status, count] : other.statuses)
        statuses[status] += count;
    bytesIn += other.bytesIn;
    unmeasured += other.unmeasured;
    m_sorted = false;
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
    for (const auto &[status, n] : statuses)
        line += QStringLiteral(" s%1=%2").arg(status).arg(n);
    return line;
}

} // namespace marquee::bench
