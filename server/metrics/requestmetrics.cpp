// SPDX-License-Identifier: AGPL-3.0-or-later
#include "metrics/requestmetrics.h"

#include <algorithm>

namespace marquee::metrics {

namespace {
constexpr size_t kStatusSlots = RequestMetrics::kStatuses.size() + 1; // + other
constexpr size_t kBuckets = RequestMetrics::kBucketMicros.size() + 1; // + Inf

size_t statusSlot(int status)
{
    const auto &statuses = RequestMetrics::kStatuses;
    const auto it = std::lower_bound(statuses.begin(), statuses.end(), status);
    return it != statuses.end() && *it == status ? size_t(it - statuses.begin()) : statuses.size();
}

size_t bucketOf(qint64 microseconds)
{
    const auto &bounds = RequestMetrics::kBucketMicros;
    return size_t(std::lower_bound(bounds.begin(), bounds.end(), microseconds) - bounds.begin());
}
} // namespace

struct RequestMetrics::Route {
    std::array<std::atomic<quint64>, kStatusSlots> byStatus{};
    std::array<std::atomic<quint64>, kBuckets> byDuration{}; ///< not cumulative; summed when written
    std::atomic<quint64> totalMicros{0};
};

RequestMetrics::RequestMetrics(const QStringList &routes)
    : m_labels(routes)
    , m_routes(new Route[size_t(routes.size()) + 1])
{
    static_assert(std::is_sorted(kStatuses.begin(), kStatuses.end()), "statusSlot() searches the statuses");
    m_labels << QStringLiteral("unmatched");
}

RequestMetrics::~RequestMetrics() = default;

void RequestMetrics::record(int route, int status, qint64 microseconds)
{
    const size_t index = route >= 0 && route < m_labels.size() - 1 ? size_t(route) : size_t(m_labels.size() - 1);
    Route &slot = m_routes[index];
    slot.byStatus[statusSlot(status)].fetch_add(1, std::memory_order_relaxed);
    slot.byDuration[bucketOf(std::max<qint64>(microseconds, 0))].fetch_add(1, std::memory_order_relaxed);
    slot.totalMicros.fetch_add(quint64(std::max<qint64>(microseconds, 0)), std::memory_order_relaxed);
}

void RequestMetrics::writePrometheus(QByteArray &out) const
{
    prometheus::family(out, "marquee_http_requests_total", "counter", "HTTP requests answered, by route and status.");
    for (qsizetype r = 0; r < m_labels.size(); ++r) {
        const QByteArray route = "route=\"" + prometheus::escapeLabel(m_labels[r]) + '"';
        for (size_t s = 0; s < kStatusSlots; ++s) {
            const quint64 count = m_routes[size_t(r)].byStatus[s].load(std::memory_order_relaxed);
            if (count == 0)
                continue;
            const QByteArray status = s < kStatuses.size() ? QByteArray::number(kStatuses[s]) : QByteArray("other");
            prometheus::sample(out, "marquee_http_requests_total", route + ",status=\"" + status + '"', double(count));
        }
    }
    prometheus::family(out, "marquee_http_request_duration_seconds", "histogram",
                       "Time from the parsed request to the written answer, by route.");
    for (qsizetype r = 0; r < m_labels.size(); ++r) {
        const Route &slot = m_routes[size_t(r)];
        quint64 cumulative = 0;
        std::array<quint64, kBuckets> counts{};
        for (size_t b = 0; b < kBuckets; ++b)
            counts[b] = slot.byDuration[b].load(std::memory_order_relaxed);
        quint64 total = 0;
        for (quint64 c : counts)
            total += c;
        if (total == 0)
            continue; // a route never asked for: no series
        const QByteArray route = "route=\"" + prometheus::escapeLabel(m_labels[r]) + '"';
        for (size_t b = 0; b < kBuckets; ++b) {
            cumulative += counts[b];
            const QByteArray le = b < kBucketMicros.size() ? QByteArray::number(double(kBucketMicros[b]) / 1e6, 'g', 6) : QByteArray("+Inf");
            prometheus::sample(out, "marquee_http_request_duration_seconds_bucket", route + ",le=\"" + le + '"', double(cumulative));
        }
        prometheus::sample(out, "marquee_http_request_duration_seconds_sum", route,
                           double(slot.totalMicros.load(std::memory_order_relaxed)) / 1e6);
        prometheus::sample(out, "marquee_http_request_duration_seconds_count", route, double(cumulative));
    }
}

namespace prometheus {

void family(QByteArray &out, const char *name, const char *type, const char *help)
{
    out += "# HELP ";
    out += name;
    out += ' ';
    out += help;
    out += "\n# TYPE ";
    out += name;
    out += ' ';
    out += type;
    out += '\n';
}

void sample(QByteArray &out, const char *name, const QByteArray &labels, double value)
{
    out += name;
    if (!labels.isEmpty())
        out += '{' + labels + '}';
    out += ' ';
    out += QByteArray::number(value, 'g', 17);
    out += '\n';
}

QByteArray escapeLabel(const QString &value)
{
    QByteArray escaped;
    for (const char c : value.toUtf8()) {
        if (c == '\\')
            escaped += "\\\\";
        else if (c == '"')
            escaped += "\\\"";
        else if (c == '\n')
            escaped += "\\n";
        else
            escaped += c;
    }
    return escaped;
}

} // namespace prometheus

} // namespace marquee::metrics
