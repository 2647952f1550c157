// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QString>
#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

namespace marquee::bench {

/** @brief Latencies and status codes of the answers completed inside the measuring window. */
struct Stats {
    std::vector<uint32_t> latencyUs; ///< one entry per measured answer
    std::map<int, uint64_t> statuses; ///< status → count (0: connection failure)
    uint64_t bytesIn = 0;
    uint64_t unmeasured = 0; ///< answers during warm-up and drain
    double windowSeconds = 0;
    /** @brief Client-observed latency of the measured answers, per status (200 vs 409 for holds). */
    std::map<int, std::vector<uint32_t>> latencyUsByStatus;
    /**
     * @brief What the server says it spent (its `Server-Timing` header, hold route only): from the parsed
     * request to the answer (total), waiting for a hold batch (queue), the batch's transaction (db); and how
     * many answers came from memory without PostgreSQL. Empty when the server sends no such header.
     */
    std::vector<uint32_t> serverTotalUs;
    std::map<int, std::vector<uint32_t>> serverTotalUsByStatus;
    std::vector<uint32_t> serverQueueUs;
    std::vector<uint32_t> serverDbUs;
    uint64_t serverFromMemory = 0;

    /** @brief Record the Server-Timing header of one measured answer (ignored when empty). */
    void recordServerTiming(int status, std::string_view serverTiming);

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
    /** @brief Nearest-rank percentile of any latency vector, in milliseconds (sorts it). */
    static double percentileMs(std::vector<uint32_t> &latencies, double p);

private:
    bool m_sorted = false;
};

} // namespace marquee::bench
