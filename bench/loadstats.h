// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QString>
#include <cstdint>
#include <map>
#include <vector>

namespace marquee::bench {

/** @brief Latencies and status codes of the answers completed inside the measuring window. */
struct Stats {
    std::vector<uint32_t> latencyUs; ///< one entry per measured answer
    std::map<int, uint64_t> statuses; ///< status → count (0: connection failure)
    uint64_t bytesIn = 0;
    uint64_t unmeasured = 0; ///< answers during warm-up and drain
    double windowSeconds = 0;

    void merge(const Stats &other);
    /** @brief Percentile in milliseconds (sorts latencyUs on first use). */
    double percentileMs(double p);
    double maxMs();
    double meanMs() const;
    uint64_t count() const { return latencyUs.size(); }
    double rate() const { return windowSeconds > 0 ? double(count()) / windowSeconds : 0; }
    /** @brief Human-readable report. */
    QString report(const QString &title);
    /** @brief One machine-readable line: `RESULT key=value ...` for scripts. */
    QString resultLine(const QString &scenario);

private:
    bool m_sorted = false;
};

} // namespace marquee::bench
