// SPDX-License-Identifier: AGPL-3.0-or-later
// GET /metrics: Prometheus text on its own listener, counting what the API answered, route by route.
#include "rawconnection.h"
#include "servertesthelpers.h"

#include "metrics/requestmetrics.h"

#include <QHash>
#include <QRegularExpression>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {

TestServer::Options withMetrics()
{
    return TestServer::Options::withConfig([](ServerConfig &config) {
        config.metricsEnabled = true;
        config.metricsPort = 0;
    });
}

/** @brief One GET over a raw socket (the metrics listener is not the API: the recorded API exchanges stay apart). */
struct RawAnswer {
    int status = 0;
    QByteArray headers;
    QByteArray body;
};

RawAnswer rawGet(quint16 port, const QByteArray &path)
{
    RawConnection connection(port);
    EXPECT_TRUE(connection.isOpen());
    connection.send("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    connection.readUntil([](const QByteArray &) { return false; }, 5000); // until the server closes
    const QByteArray received = connection.received();
    RawAnswer answer;
    const qsizetype end = received.indexOf("\r\n\r\n");
    if (end < 0)
        return answer;
    answer.headers = received.left(end);
    answer.body = received.mid(end + 4);
    const QList<QByteArray> statusLine = answer.headers.split('\n').first().split(' ');
    answer.status = statusLine.size() > 1 ? statusLine[1].toInt() : 0;
    return answer;
}

/** @brief The samples of an exposition, `name{labels}` → value; fails the test on a line that is not valid text format. */
QHash<QString, double> parseExposition(const QByteArray &text)
{
    static const QRegularExpression sampleLine(QStringLiteral(R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*\})? (\S+)$)"));
    static const QRegularExpression commentLine(QStringLiteral(R"(^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$)"));
    QHash<QString, double> samples;
    for (const QByteArray &line : text.split('\n')) {
        if (line.isEmpty())
            continue;
        const QString l = QString::fromUtf8(line);
        if (l.startsWith(QLatin1Char('#'))) {
            EXPECT_TRUE(commentLine.match(l).hasMatch()) << line.constData();
            continue;
        }
        const auto match = sampleLine.match(l);
        EXPECT_TRUE(match.hasMatch()) << "not a Prometheus sample: " << line.constData();
        if (!match.hasMatch())
            continue;
        bool ok = false;
        const double value = match.captured(3) == QLatin1String("+Inf") ? qInf() : match.captured(3).toDouble(&ok);
        EXPECT_TRUE(ok || qIsInf(value)) << line.constData();
        samples.insert(match.captured(1) + match.captured(2), value);
    }
    return samples;
}

} // namespace

TEST(Metrics, CountsEachRouteAndStatusOnItsOwnListener)
{
    TestServer server(withMetrics());
    ASSERT_NE(server.metricsPort(), 0);
    ASSERT_NE(server.metricsPort(), server.port());
    const qint64 showId = server.createShow(2, 5);
    auto client = server.client(server.deviceToken());

    const QHash<QString, double> before = parseExposition(rawGet(server.metricsPort(), "/metrics").body);
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(client->get("/healthz").status, 200);
    EXPECT_EQ(client->post("/api/v1/shows/" + QByteArray::number(showId) + "/hold", seatsBody({QStringLiteral("A1"), QStringLiteral("A2")})).status, 200);
    EXPECT_EQ(client->post("/api/v1/shows/" + QByteArray::number(showId) + "/hold", seatsBody({QStringLiteral("A2")})).status, 409);
    EXPECT_EQ(client->get("/api/v1/no-such-thing").status, 404);
    EXPECT_EQ(client->get("/metrics").status, 404) << "the metrics must not be served on the API port";

    const RawAnswer scrape = rawGet(server.metricsPort(), "/metrics");
    ASSERT_EQ(scrape.status, 200);
    EXPECT_TRUE(scrape.headers.contains("text/plain; version=0.0.4")) << scrape.headers.constData();
    const QHash<QString, double> after = parseExposition(scrape.body);
    auto delta = [&](const QString &series) { return after.value(series) - before.value(series); };

    EXPECT_EQ(delta(QStringLiteral(R"(marquee_http_requests_total{route="GET /healthz",status="200"})")), 3);
    const QString hold = QStringLiteral("POST /api/v1/shows/{show_id}/hold");
    EXPECT_EQ(delta(QStringLiteral(R"(marquee_http_requests_total{route="%1",status="200"})").arg(hold)), 1);
    EXPECT_EQ(delta(QStringLiteral(R"(marquee_http_requests_total{route="%1",status="409"})").arg(hold)), 1);
    EXPECT_EQ(delta(QStringLiteral(R"(marquee_http_requests_total{route="unmatched",status="404"})")), 2);

    // The hold route's histogram: cumulative buckets ending in +Inf, which equals the count.
    double previous = 0;
    for (const qint64 bound : metrics::RequestMetrics::kBucketMicros) {
        const QString bucket = QStringLiteral(R"(marquee_http_request_duration_seconds_bucket{route="%1",le="%2"})")
                                   .arg(hold, QString::number(double(bound) / 1e6, 'g', 6));
        ASSERT_TRUE(after.contains(bucket)) << bucket.toStdString();
        EXPECT_GE(after.value(bucket), previous);
        previous = after.value(bucket);
    }
    const double infinite = after.value(QStringLiteral(R"(marquee_http_request_duration_seconds_bucket{route="%1",le="+Inf"})").arg(hold));
    EXPECT_GE(infinite, previous);
    EXPECT_EQ(infinite, after.value(QStringLiteral(R"(marquee_http_request_duration_seconds_count{route="%1"})").arg(hold)));
    EXPECT_GE(infinite, 2);
    EXPECT_GT(after.value(QStringLiteral(R"(marquee_http_request_duration_seconds_sum{route="%1"})").arg(hold)), 0);

    // The figures that are not per request.
    EXPECT_EQ(after.value(QStringLiteral("marquee_database_up")), 1);
    EXPECT_GE(after.value(QStringLiteral("marquee_database_sessions")), 2) << "the workers' and the metrics thread's connections";
    EXPECT_TRUE(after.contains(QStringLiteral("marquee_outbox_unpublished_events")));
    EXPECT_TRUE(after.contains(QStringLiteral("marquee_hold_refused_from_memory_total")));
    EXPECT_TRUE(after.contains(QStringLiteral("marquee_hold_batches_total")));
    EXPECT_TRUE(after.contains(QStringLiteral("marquee_live_subscribers")));
    EXPECT_GE(after.value(QStringLiteral("marquee_http_open_connections")), 1);

    // Only GET /metrics is served there.
    EXPECT_EQ(rawGet(server.metricsPort(), "/api/v1/cities").status, 404);
}

TEST(Metrics, OffUnlessConfigured)
{
    TestServer server;
    EXPECT_EQ(server.metricsPort(), 0);
}
