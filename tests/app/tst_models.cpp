// SPDX-License-Identifier: AGPL-3.0-or-later
// Models and small parts without a server: options, seat-map parsing and selection, money text, answer classes.
#include "appconfig.h"
#include "kioskapi.h"
#include "seatmapmodel.h"
#include "transportstatus.h"
#include "sync/apiclient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QFile>
#include <QTemporaryDir>
#include <cmath>
#include <gtest/gtest.h>

using namespace marquee::app;

namespace {
QByteArray seatMapBody(int rows, int seats, const QStringList &held = {})
{
    QJsonArray list;
    for (int r = 0; r < rows; ++r)
        for (int n = 1; n <= seats; ++n) {
            const QString row(QChar(u'A' + r));
            const QString id = row + QString::number(n);
            list.append(QJsonObject{{"seat_id", id}, {"row", row}, {"number", n}, {"x", 10 + n * 10}, {"y", 30 + r * 14},
                                    {"tier", r == rows - 1 ? "premium" : "standard"}, {"price_minor", r == rows - 1 ? 1800 : 1250},
                                    {"attributes", r == 0 && n == 1 ? QJsonArray{"wheelchair"} : QJsonArray{}},
                                    {"status", held.contains(id) ? "held" : "available"}});
        }
    const QJsonObject layout{{"name", "Test"}, {"width", seats * 10 + 40}, {"height", rows * 14 + 60},
                             {"stage", QJsonObject{{"label", "SCREEN"}, {"x1", 20}, {"y1", 10}, {"x2", seats * 10}, {"y2", 10}}},
                             {"rows", QJsonArray{QJsonObject{{"label", "A"}, {"x", 4}, {"y", 30}}}},
                             {"tiers", QJsonArray{QJsonObject{{"tier", "standard"}, {"price_minor", 1250}},
                                                  QJsonObject{{"tier", "premium"}, {"price_minor", 1800}}}}};
    return QJsonDocument(QJsonObject{{"show_id", 7}, {"version", 1}, {"currency", "EUR"}, {"layout", layout}, {"seats", list}}).toJson();
}
} // namespace

TEST(AppConfig, ParsesTheCommandLineAndRefusesBadInput)
{
    QString error;
    auto config = parseArguments({"marquee", "--role", "kiosk", "--server", "http://127.0.0.1:8080", "--token", "abc", "--language", "de",
                                  "--fullscreen"},
                                 &error);
    ASSERT_TRUE(config) << error.toStdString();
    EXPECT_EQ(config->server.port(), 8080);
    EXPECT_EQ(config->language, QStringLiteral("de"));
    EXPECT_TRUE(config->fullscreen);
    EXPECT_FALSE(parseArguments({"marquee", "--role", "janitor", "--server", "http://x", "--token", "t"}, &error));
    // A kiosk without a token takes its stored credentials, or pairs; the desk and a device with a token need --server.
    const auto unpaired = parseArguments({"marquee", "--server", "http://127.0.0.1:8080"}, &error);
    ASSERT_TRUE(unpaired) << error.toStdString();
    EXPECT_EQ(startupNeed(*unpaired), StartupNeed::Credentials);
    const auto bare = parseArguments({"marquee"}, &error);
    ASSERT_TRUE(bare) << error.toStdString();
    EXPECT_EQ(startupNeed(*bare), StartupNeed::Credentials);
    EXPECT_FALSE(parseArguments({"marquee", "--token", "t"}, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("--server")));
    EXPECT_FALSE(parseArguments({"marquee", "--role", "manager"}, &error));
    EXPECT_FALSE(parseArguments({"marquee", "--pair"}, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("--pair needs --server")));
    EXPECT_EQ(startupNeed(*parseArguments({"marquee", "--role", "manager", "--server", "http://127.0.0.1:8080"}, &error)), StartupNeed::Ready);
    EXPECT_FALSE(parseArguments({"marquee", "--server", "http://x", "--token", "t", "--language", "fr"}, &error));
}

TEST(AppConfig, ReadsTheConfigFileButTheCommandLineWins)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("kiosk.ini"));
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write("role=kiosk\nserver=https://10.0.0.5:8080\ntoken=fromfile\nidle_timeout=45\nlanguage=de\n");
    file.close();
    QString error;
    auto config = parseArguments({"marquee", "--config", path, "--language", "en"}, &error);
    ASSERT_TRUE(config) << error.toStdString();
    EXPECT_EQ(config->server.host(), QStringLiteral("10.0.0.5"));
    EXPECT_EQ(config->token, QStringLiteral("fromfile"));
    EXPECT_EQ(config->idleTimeoutSeconds, 45);
    EXPECT_EQ(config->language, QStringLiteral("en"));
}

TEST(AppConfig, PlainHttpToAnotherMachineIsRefusedUnlessAllowed)
{
    QString error;
    EXPECT_FALSE(parseArguments({"marquee", "--server", "http://192.0.2.1:8080", "--token", "t"}, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("Refusing plain http:// to 192.0.2.1"))) << error.toStdString();
    EXPECT_TRUE(error.contains(QStringLiteral("--allow-insecure-http"))) << error.toStdString();
    EXPECT_FALSE(parseArguments({"marquee", "--server", "https://192.0.2.1", "--token", "t", "--paysim", "http://192.0.2.2:8090"}, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("192.0.2.2"))) << error.toStdString();

    // Loopback needs no TLS; https:// anywhere is fine; the flag allows plain http and says so (the banner).
    for (const char *server : {"http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080", "https://192.0.2.1"}) {
        const auto config = parseArguments({"marquee", "--server", server, "--token", "t"}, &error);
        ASSERT_TRUE(config) << server << ": " << error.toStdString();
        EXPECT_FALSE(config->allowInsecureHttp);
    }
    const auto allowed = parseArguments({"marquee", "--server", "http://192.0.2.1:8080", "--token", "t", "--allow-insecure-http"}, &error);
    ASSERT_TRUE(allowed) << error.toStdString();
    EXPECT_TRUE(allowed->allowInsecureHttp);
    const auto policy = transportPolicy(*allowed, &error);
    ASSERT_TRUE(policy);
    EXPECT_TRUE(policy->refusal(QUrl(QStringLiteral("ws://192.0.2.1:8080/api/v1/shows/1/live"))).isEmpty());
    marquee::sync::TransportPolicy::install(*policy);
    EXPECT_TRUE(TransportStatus().insecure());
    EXPECT_FALSE(TransportStatus().warning().isEmpty());
    marquee::sync::TransportPolicy::install({});
    EXPECT_FALSE(TransportStatus().insecure());

    // The venue CA: a file without a certificate is refused with its name.
    QTemporaryDir dir;
    QFile notACertificate(dir.filePath(QStringLiteral("ca.crt")));
    ASSERT_TRUE(notACertificate.open(QIODevice::WriteOnly));
    notACertificate.write("not a certificate\n");
    notACertificate.close();
    const auto withCa = parseArguments({"marquee", "--server", "https://192.0.2.1", "--token", "t", "--ca-file", notACertificate.fileName()}, &error);
    ASSERT_TRUE(withCa) << error.toStdString();
    EXPECT_FALSE(transportPolicy(*withCa, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("holds no PEM certificate"))) << error.toStdString();
}

namespace {
/** @brief An answer as sync::ApiClient reports it: @p status 0 is a network error (@p timedOut or refused). */
marquee::sync::ApiResult answer(int status, const QByteArray &body = {}, bool timedOut = false)
{
    using marquee::sync::ApiResult;
    ApiResult result;
    result.status = status;
    result.body = body;
    result.timedOut = timedOut;
    result.kind = status == 0 ? ApiResult::Kind::NetworkError : (status >= 200 && status < 300 ? ApiResult::Kind::Success : ApiResult::Kind::HttpError);
    if (result.kind == ApiResult::Kind::HttpError)
        result.error = marquee::ApiError::fromBody(status, body);
    return result;
}
} // namespace

TEST(KioskApi, ClassifiesAnswersIntoTypedErrors)
{
    EXPECT_EQ(KioskApi::classify(answer(0, {}, true)).kind, ApiErrorKind::Offline);
    EXPECT_EQ(KioskApi::classify(answer(0, {}, true)).code, QStringLiteral("timeout"));
    EXPECT_EQ(KioskApi::classify(answer(0)).code, QStringLiteral("unreachable"));
    EXPECT_EQ(KioskApi::classify(answer(200, "{}")).kind, ApiErrorKind::None);
    EXPECT_EQ(KioskApi::classify(answer(200, "not json")).kind, ApiErrorKind::BadResponse);
    EXPECT_EQ(KioskApi::classify(answer(304)).kind, ApiErrorKind::None);
    const ApiReply conflict = KioskApi::classify(answer(409, R"({"error":"seats_unavailable","message":"m","held_seats":["A1"]})"));
    EXPECT_EQ(conflict.kind, ApiErrorKind::Conflict);
    EXPECT_EQ(conflict.code, QStringLiteral("seats_unavailable"));
    EXPECT_EQ(conflict.message, QStringLiteral("m"));
    EXPECT_EQ(KioskApi::classify(answer(402, R"({"error":"payment_failed"})")).kind, ApiErrorKind::PaymentFailed);
    EXPECT_EQ(KioskApi::classify(answer(401)).kind, ApiErrorKind::Unauthorized);
    EXPECT_EQ(KioskApi::classify(answer(503)).kind, ApiErrorKind::Server);
    EXPECT_EQ(KioskApi::classify(answer(422)).kind, ApiErrorKind::Rejected);
}

TEST(SeatMapModel, ParsesTiersSeatsAndSelection)
{
    SeatMapModel model;
    ASSERT_TRUE(model.applyBody(seatMapBody(3, 8, {QStringLiteral("B4")}), "\"1.x\""));
    EXPECT_EQ(model.seatCount(), 24);
    EXPECT_EQ(model.rowCount(), 24);
    EXPECT_EQ(model.availableCount(), 23);
    ASSERT_EQ(model.tierNames().size(), 2);
    EXPECT_EQ(model.tierNames().first(), QStringLiteral("premium")) << "dearest tier first";
    EXPECT_EQ(model.stageLabel(), QStringLiteral("SCREEN"));
    EXPECT_TRUE(model.seats()[0].wheelchair);
    EXPECT_FALSE(model.toggle(QStringLiteral("B4"))) << "a held seat cannot be selected";
    EXPECT_TRUE(model.toggle(QStringLiteral("C1")));
    EXPECT_TRUE(model.toggle(QStringLiteral("C2")));
    EXPECT_EQ(model.selectedTotalMinor(), 3600);
    EXPECT_TRUE(model.toggle(QStringLiteral("C2")));
    EXPECT_EQ(model.selectedSeats(), QStringList{QStringLiteral("C1")});
    EXPECT_FALSE(model.applyBody("{nonsense", {}));
    EXPECT_EQ(model.seatCount(), 24) << "a bad body changes nothing";
}

TEST(SeatMapModel, APollThatShowsASelectedSeatTakenUnselectsIt)
{
    SeatMapModel model;
    ASSERT_TRUE(model.applyBody(seatMapBody(3, 8), "\"1\""));
    ASSERT_TRUE(model.toggle(QStringLiteral("B3")));
    ASSERT_TRUE(model.toggle(QStringLiteral("B4")));
    QStringList lost;
    QObject::connect(&model, &SeatMapModel::selectionLost, [&](const QStringList &seats) { lost = seats; });
    ASSERT_TRUE(model.applyBody(seatMapBody(3, 8, {QStringLiteral("B4")}), "\"2\""));
    EXPECT_EQ(lost, QStringList{QStringLiteral("B4")});
    EXPECT_EQ(model.selectedSeats(), QStringList{QStringLiteral("B3")});
    EXPECT_EQ(model.availableCount(), 23);
}

TEST(SeatMapModel, MarkTakenHighlightsAndSuggestsTheNearestFreeBlock)
{
    SeatMapModel model;
    ASSERT_TRUE(model.applyBody(seatMapBody(3, 10), "\"1\""));
    ASSERT_TRUE(model.toggle(QStringLiteral("B5")));
    ASSERT_TRUE(model.toggle(QStringLiteral("B6")));
    model.markTaken({QStringLiteral("B5"), QStringLiteral("B6")});
    EXPECT_EQ(model.highlightedSeats().size(), 2);
    const QStringList suggestion = model.selectedSeats();
    ASSERT_EQ(suggestion.size(), 2);
    EXPECT_FALSE(suggestion.contains(QStringLiteral("B5")));
    EXPECT_FALSE(suggestion.contains(QStringLiteral("B6")));
    // Nearest to B5/B6: still row B, or a neighbouring row right behind or in front.
    for (const QString &seat : suggestion) {
        const int i = model.indexOf(seat);
        EXPECT_LE(std::abs(model.seats()[size_t(i)].x - 65), 30) << seat.toStdString();
    }
}

TEST(SeatMapModel, BestAvailableSelectsTheDearestTierCentre)
{
    SeatMapModel model;
    ASSERT_TRUE(model.applyBody(seatMapBody(4, 10), "\"1\""));
    ASSERT_TRUE(model.selectBestAvailable(2));
    EXPECT_EQ(model.selectedSeats(), (QStringList{QStringLiteral("D5"), QStringLiteral("D6")}));
}

