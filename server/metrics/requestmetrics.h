// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QStringList>
#include <array>
#include <atomic>
#include <memory>

namespace marquee::metrics {

/**
 * @brief Request counts per route and status and latency histograms per route, for GET /metrics.
 *
 * The routes are fixed when the server starts (the router's patterns, so labels never grow with the paths clients
 * send); each worker thread records into shared relaxed atomics — three additions per answered request, no lock.
 */
class RequestMetrics
{
public:
    /** @brief @p routes: "METHOD pattern" of each route, in the router's order; one more slot counts unmatched paths. */
    explicit RequestMetrics(const QStringList &routes);
    ~RequestMetrics();

    /** @brief An answer to a request of route @p route (index into the constructor's list; -1: no route matched). */
    void record(int route, int status, qint64 microseconds);

    /** @brief marquee_http_requests_total and marquee_http_request_duration_seconds in Prometheus text format. */
    void writePrometheus(QByteArray &out) const;

    /** @brief Upper bounds of the latency buckets, in microseconds (the last bucket, +Inf, is implied). */
    static constexpr std::array<qint64, 14> kBucketMicros{250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000, 1000000, 2500000, 10000000};
    /** @brief The statuses counted on their own; any other is counted as "other". */
    static constexpr std::array<int, 22> kStatuses{200, 201, 202, 204, 304, 400, 401, 402, 403, 404, 405, 408, 409, 410, 413, 415, 422, 429, 431, 500, 502, 503};

private:
    struct Route;
    QStringList m_labels;
    std::unique_ptr<Route[]> m_routes;
};

/** @brief Prometheus text exposition helpers: one metric family with its HELP and TYPE lines. */
namespace prometheus {
/** @brief `# HELP` and `# TYPE` of @p name. */
void family(QByteArray &out, const char *name, const char *type, const char *help);
/** @brief One sample: `name{labels} value`; @p labels already formatted (`route="…"`), may be empty. */
void sample(QByteArray &out, const char *name, const QByteArray &labels, double value);
/** @brief A label value escaped as the format wants (backslash, double quote, line feed). */
QByteArray escapeLabel(const QString &value);
} // namespace prometheus

} // namespace marquee::metrics
