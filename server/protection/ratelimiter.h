// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QHash>
#include <QMutex>
#include <array>
#include <optional>

namespace marquee::protection {

/**
 * @brief Token buckets per key (a client address, a bearer token): @p perSecond requests a second on average,
 * bursts of twice that. Decided in memory, never touching the database, so a flood costs almost nothing.
 * Thread-safe; keys are spread over several locks so that worker threads rarely wait for each other.
 */
class RateLimiter
{
public:
    explicit RateLimiter(int perSecond);

    /** @brief Take one request for @p key; nothing when admitted, else the seconds until one would be (≥ 1). */
    std::optional<int> admit(const QByteArray &key, qint64 nowMs);
    bool enabled() const { return m_perSecond > 0; }

private:
    struct Bucket {
        double tokens = 0;
        qint64 updatedMs = 0;
    };
    struct Stripe {
        QMutex mutex;
        QHash<QByteArray, Bucket> buckets;
        quint32 calls = 0;
    };
    static constexpr int kStripes = 16;
    static constexpr int kIdleForgetMs = 60000; ///< buckets idle this long are full again and are dropped

    const int m_perSecond;
    const double m_burst;
    std::array<Stripe, kStripes> m_stripes;
};

} // namespace marquee::protection
