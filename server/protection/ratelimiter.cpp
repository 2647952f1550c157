// SPDX-License-Identifier: AGPL-3.0-or-later
#include "protection/ratelimiter.h"

#include <cmath>

namespace marquee::protection {

RateLimiter::RateLimiter(int perSecond)
    : m_perSecond(perSecond)
    , m_burst(2.0 * perSecond)
{
}

std::optional<int> RateLimiter::admit(const QByteArray &key, qint64 nowMs)
{
    if (m_perSecond <= 0)
        return std::nullopt;
    Stripe &stripe = m_stripes[qHash(key) % kStripes];
    QMutexLocker lock(&stripe.mutex);
    if (++stripe.calls % 4096 == 0) {
        // Forget idle clients now and then, so that a stream of one-off addresses cannot grow the table without end.
        for (auto it = stripe.buckets.begin(); it != stripe.buckets.end();)
            it = nowMs - it->updatedMs > kIdleForgetMs ? stripe.buckets.erase(it) : std::next(it);
    }
    auto it = stripe.buckets.find(key);
    if (it == stripe.buckets.end())
        it = stripe.buckets.insert(key, Bucket{m_burst, nowMs});
    Bucket &bucket = *it;
    bucket.tokens = std::min(m_burst, bucket.tokens + double(nowMs - bucket.updatedMs) * m_perSecond / 1000.0);
    bucket.updatedMs = nowMs;
    if (bucket.tokens >= 1.0) {
        bucket.tokens -= 1.0;
        return std::nullopt;
    }
    return std::max(1, int(std::ceil((1.0 - bucket.tokens) / m_perSecond)));
}

} // namespace marquee::protection
