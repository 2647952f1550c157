// SPDX-License-Identifier: AGPL-3.0-or-later
#include "testserver.h"

#include "startup/demoseed.h"
#include "store/showrepository.h"
#include "testcluster.h"

#include <QSqlQuery>
#include <cstdio>
#include <cstdlib>

namespace marquee::test {

TestServer::TestServer()
    : TestServer(Options{})
{
}

TestServer::TestServer(const Options &options)
{
    m_databaseConfig = options.database ? *options.database : TestCluster::instance().createDatabase();
    ServerConfig config;
    config.listenAddress = QHostAddress::LocalHost;
    config.listenPort = 0;
    config.threads = options.threads;
    config.databaseUrl = m_databaseConfig.toUrl(true);
    config.dataDirectory = m_dataDirectory.path();
    config.holdTtlSeconds = options.holdTtlSeconds;
    config.reaperIntervalMs = options.reaperIntervalMs;
    config.maxSeatsPerHold = options.maxSeatsPerHold;
    if (!options.boundHeldSeats)
        config.maxHeldSeatsKiosk = config.maxHeldSeatsTill = config.maxHeldSeatsStaff = 0;
    config.payments.providerUrl = options.paymentProviderUrl;
    config.payments.webhookSecret = options.paymentWebhookSecret;
    config.payments.paymentWindowSeconds = options.paymentWindowSeconds;
    config.payments.graceSeconds = options.paymentGraceSeconds;
    config.payments.reconcileMinAgeSeconds = options.reconcileMinAgeSeconds;
    config.payments.cancelCutoffSeconds = options.cancelCutoffSeconds;
    config.payments.cancelFeeMinor = options.cancelFeeMinor;
    config.payments.cancelFeePercent = options.cancelFeePercent;
    config.payments.providerTimeoutMs = 5000;
    config.reconcilerIntervalMs = options.reconcilerIntervalMs;
    config.occupancyWarmShows = 0; // tests count the reports a server computes: warming is switched on where tested
    if (options.configure)
        options.configure(config);
    m_server = std::make_unique<MarqueeServer>(config);
    if (!m_server->start()) {
        std::fprintf(stderr, "test server did not start: %s\n", qPrintable(m_server->errorString()));
        std::abort();
    }
}

TestServer::~TestServer()
{
    m_server->stop();
}

std::unique_ptr<HttpClient> TestServer::client(const QString &token) const
{
    auto client = std::make_unique<HttpClient>(QStringLiteral("127.0.0.1"), port());
    client->setToken(token);
    return client;
}

QString TestServer::deviceToken(const QString &role)
{
    QString error;
    const auto token = context().auth.addDevice(QStringLiteral("device-%1").arg(++m_counter), *roleFromString(role), &error);
    if (!token) {
        std::fprintf(stderr, "cannot enrol device: %s\n", qPrintable(error));
        std::abort();
    }
    return *token;
}

QString TestServer::staffToken(const QString &role)
{
    QString error;
    const QString name = QStringLiteral("staff-%1").arg(++m_counter);
    if (!context().auth.addStaff(name, *roleFromString(role), QString::fromLatin1(kStaffPassword), &error)) {
        std::fprintf(stderr, "cannot add staff: %s\n", qPrintable(error));
        std::abort();
    }
    return context().auth.createSession(name, QString::fromLatin1(kStaffPassword), 3600)->token;
}

QString TestServer::elevatedStaffToken(const QString &role)
{
    const QString token = staffToken(role);
    const auto session = context().auth.authenticate(token);
    if (!session || context().auth.reauthenticate(*session, QString::fromLatin1(kStaffPassword), QString(), 3600).kind != store::Reauth::Kind::Elevated) {
        std::fprintf(stderr, "cannot re-authenticate a test session\n");
        std::abort();
    }
    return token;
}

TestShow createTestShow(const store::Database &database, int number, qint64 cityId, int rows, int seatsPerRow,
    QDateTime startsAt, QDateTime salesOpenAt)
{
    store::ShowRepository shows(database);
    const int n = number;
    TestShow made;
    made.cityId
        = cityId ? cityId : *shows.addCity(QStringLiteral("Testville"), QStringLiteral("XX"), QStringLiteral("UTC"));
    const qint64 venue = *shows.addVenue(
        made.cityId, QStringLiteral("Venue %1").arg(n), QStringLiteral("")); // empty, not NULL: the column is NOT NULL
    store::NewLayout layout;
    layout.name = QStringLiteral("Test layout %1").arg(n);
    layout.width = seatsPerRow * 10 + 20;
    layout.height = rows * 10 + 40;
    layout.stage = QJsonObject{{QStringLiteral("label"), QStringLiteral("SCREEN")}};
    for (int r = 0; r < rows; ++r) {
        // Row labels A..Z then R26, R27...: distinct and short.
        const QString row = r < 26 ? QString(QChar(u'A' + r)) : QStringLiteral("R%1").arg(r);
        layout.rows.push_back({row, 0, 30 + r * 10});
        for (int s = 1; s <= seatsPerRow; ++s) {
            Seat seat;
            seat.seatId = row + QString::number(s);
            seat.row = row;
            seat.number = s;
            seat.x = 10 + s * 10;
            seat.y = 30 + r * 10;
            seat.tier = r >= rows - 2 ? QStringLiteral("premium") : QStringLiteral("standard");
            if (r == 0 && s == 1)
                seat.attributes = {QStringLiteral("wheelchair")};
            layout.seats.push_back(seat);
        }
    }
    const qint64 layoutId = *shows.addLayout(layout);
    const qint64 screen = *shows.addScreen(venue, QStringLiteral("Screen %1").arg(n), layoutId);
    made.movieId = *shows.addMovie(QStringLiteral("Test Movie %1").arg(n), QStringLiteral("movie"), 100,
        QStringLiteral("U"), {QStringLiteral("Drama")}, QStringLiteral(""));
    store::NewShow show;
    show.movieId = made.movieId;
    show.screenId = screen;
    show.startsAt = startsAt.isValid() ? startsAt : QDateTime::currentDateTimeUtc().addDays(1);
    show.salesOpenAt = salesOpenAt.isValid() ? salesOpenAt : QDateTime::currentDateTimeUtc().addSecs(-60);
    if (show.salesOpenAt > show.startsAt)
        show.salesOpenAt = show.startsAt;
    show.currency = QStringLiteral("EUR");
    show.prices = {{QStringLiteral("standard"), 1250}, {QStringLiteral("premium"), 1800}};
    QString error;
    const auto showId = shows.addShow(show, &error);
    if (!showId) {
        std::fprintf(stderr, "cannot create show: %s\n", qPrintable(error));
        std::abort();
    }
    made.showId = *showId;
    return made;
}

qint64 TestServer::createShow(int rows, int seatsPerRow, QDateTime startsAt, QDateTime salesOpenAt)
{
    const TestShow made
        = createTestShow(context().database, ++m_counter, m_cityId, rows, seatsPerRow, startsAt, salesOpenAt);
    m_cityId = made.cityId;
    m_movieId = made.movieId;
    return made.showId;
}

QVariant TestServer::scalar(const QString &sql)
{
    QSqlQuery query(context().database.connection());
    if (!query.exec(sql) || !query.next())
        return {};
    return query.value(0);
}

} // namespace marquee::test
