// SPDX-License-Identifier: AGPL-3.0-or-later
#include "startup/demoseed.h"

#include <QTimeZone>
#include <cmath>

namespace marquee {

namespace {
QString rowLabel(int index)
{
    // A..Z, then AA, AB... (cinemas skip I and O, which read like 1 and 0).
    static const QString letters = QStringLiteral("ABCDEFGHJKLMNPQRSTUVWXYZ");
    QString label;
    int n = index;
    do {
        label.prepend(letters[n % letters.size()]);
        n = n / int(letters.size()) - 1;
    } while (n >= 0);
    return label;
}
} // namespace

store::NewLayout cinemaLayout(const QString &name, int rows, int seatsPerRow, const QList<int> &aisleAfter, int premiumRows,
                              bool reclinerRow)
{
    constexpr int pitch = 10;   // seat width in layout units
    constexpr int rowGap = 14;  // distance between rows
    constexpr int aisle = 12;   // extra width of an aisle
    constexpr int margin = 30;
    store::NewLayout layout;
    layout.name = name;
    const int rowWidth = seatsPerRow * pitch + int(aisleAfter.size()) * aisle;
    layout.width = rowWidth + 2 * margin;
    const int screenY = 12;
    const int firstRowY = 50;
    layout.height = firstRowY + rows * rowGap + (reclinerRow ? 8 : 0) + margin;
    layout.stage = QJsonObject{{QStringLiteral("label"), QStringLiteral("SCREEN")},
                               {QStringLiteral("x1"), margin + rowWidth / 8},
                               {QStringLiteral("y1"), screenY},
                               {QStringLiteral("x2"), margin + rowWidth - rowWidth / 8},
                               {QStringLiteral("y2"), screenY}};
    const double centre = margin + rowWidth / 2.0;
    for (int r = 0; r < rows; ++r) {
        const QString label = rowLabel(r);
        const bool recliner = reclinerRow && r == rows - 1;
        const bool premium = !recliner && r >= rows - premiumRows - (reclinerRow ? 1 : 0);
        // Front rows are a little shorter, like a real fan-shaped room; recliners are wider, so fewer.
        int count = seatsPerRow - (r == 0 ? 2 : 0);
        if (recliner)
            count = seatsPerRow * 2 / 3;
        const int baseY = firstRowY + r * rowGap + (recliner ? 8 : 0);
        const double seatPitch = recliner ? pitch * 1.5 : pitch;
        double x = centre - (count * seatPitch + aisleAfter.size() * aisle) / 2.0 + seatPitch / 2;
        int firstX = 0;
        for (int n = 1; n <= count; ++n) {
            Seat seat;
            seat.row = label;
            seat.number = n;
            seat.seatId = label + QString::number(n);
            seat.x = int(std::lround(x));
            // Curved rows: the ends of a row sit closer to the screen than its middle.
            const double dx = (x - centre) / (rowWidth / 2.0);
            seat.y = int(std::lround(baseY - 6 * dx * dx));
            seat.tier = recliner ? QStringLiteral("recliner") : premium ? QStringLiteral("premium") : QStringLiteral("standard");
            if (n == 1)
                firstX = seat.x;
            if (aisleAfter.contains(n) || n == 1 || n == count)
                seat.attributes << QStringLiteral("aisle");
            // The front row has the wheelchair spaces at both ends, each with a companion seat beside it.
            if (r == 0 && (n == 1 || n == count))
                seat.attributes << QStringLiteral("wheelchair");
            if (r == 0 && (n == 2 || n == count - 1))
                seat.attributes << QStringLiteral("companion");
            if (r == 0 && (n <= 3 || n > count - 3))
                seat.attributes << QStringLiteral("restricted_view");
            layout.seats.push_back(seat);
            x += seatPitch + (aisleAfter.contains(n) && !recliner ? aisle : 0);
        }
        layout.rows.push_back({label, firstX - 16, baseY});
    }
    return layout;
}

store::NewLayout stadiumLayout(const QString &name, int blocksPerStand, int rowsPerBlock, int seatsPerRow)
{
    store::NewLayout layout;
    layout.name = name;
    const QString stands = QStringLiteral("NESW");
    const int blocks = 4 * blocksPerStand;
    const double innerRadius = 700;
    const double rowDepth = 11;
    const double outer = innerRadius + rowsPerBlock * rowDepth + 60;
    layout.width = int(2 * outer * 1.3) + 40;
    layout.height = int(2 * outer) + 40;
    const double cx = layout.width / 2.0;
    const double cy = layout.height / 2.0;
    layout.stage = QJsonObject{{QStringLiteral("label"), QStringLiteral("PITCH")},
                               {QStringLiteral("shape"), QStringLiteral("ellipse")},
                               {QStringLiteral("x1"), int(cx - innerRadius * 1.3 + 60)},
                               {QStringLiteral("y1"), int(cy - innerRadius + 60)},
                               {QStringLiteral("x2"), int(cx + innerRadius * 1.3 - 60)},
                               {QStringLiteral("y2"), int(cy + innerRadius - 60)}};
    const double blockSpan = 2 * M_PI / blocks;
    const double gap = blockSpan * 0.08; // the stairway between two blocks
    for (int b = 0; b < blocks; ++b) {
        const QChar stand = stands[b / blocksPerStand];
        const QString block = QString(stand) + QString::number(b % blocksPerStand + 1).rightJustified(2, QLatin1Char('0'));
        // Stand N starts at the top (-90°) and the blocks run clockwise.
        const double start = -M_PI / 2 - M_PI / 4 + b * blockSpan + gap / 2;
        const double span = blockSpan - gap;
        for (int r = 0; r < rowsPerBlock; ++r) {
            const QString label = block + QLatin1Char('-') + rowLabel(r);
            const double radius = innerRadius + r * rowDepth;
            QString tier = r < rowsPerBlock * 2 / 5 ? QStringLiteral("lower") : QStringLiteral("upper");
            if (stand == QLatin1Char('N') && b % blocksPerStand >= blocksPerStand / 2 - 1 && b % blocksPerStand <= blocksPerStand / 2)
                tier = QStringLiteral("pavilion");
            int firstX = 0, firstY = 0;
            for (int n = 1; n <= seatsPerRow; ++n) {
                const double angle = start + span * (n - 0.5) / seatsPerRow;
                Seat seat;
                seat.row = label;
                seat.number = n;
                seat.seatId = label + QString::number(n).rightJustified(2, QLatin1Char('0'));
                seat.x = int(std::lround(cx + std::cos(angle) * radius * 1.3));
                seat.y = int(std::lround(cy + std::sin(angle) * radius));
                seat.tier = tier;
                if (n == 1 || n == seatsPerRow)
                    seat.attributes << QStringLiteral("aisle");
                if (r == 0 && n <= 2)
                    seat.attributes << QStringLiteral("wheelchair");
                if (r == 0 && n == 3)
                    seat.attributes << QStringLiteral("companion");
                if (n == 1) {
                    firstX = seat.x;
                    firstY = seat.y;
                }
                layout.seats.push_back(seat);
            }
            layout.rows.push_back({label, firstX, firstY});
        }
    }
    return layout;
}

store::NewLayout demoStadiumLayout()
{
    return stadiumLayout(QStringLiteral("Stadium bowl (40,000)"), 10, 25, 40);
}

std::optional<DemoSeedResult> seedDemo(const store::Database &database, QString *error)
{
    DemoSeedResult result;
    store::ShowRepository shows(database);
    const auto cities = shows.cityCount(error);
    if (!cities)
        return std::nullopt;
    if (*cities > 0) {
        result.alreadySeeded = true;
        return result;
    }
    auto fail = [error](const QString &what) {
        *error = QStringLiteral("seeding failed at: %1").arg(what);
        return std::nullopt;
    };

    const auto city = shows.addCity(QStringLiteral("Pune"), QStringLiteral("IN"), QStringLiteral("Asia/Kolkata"));
    if (!city)
        return fail(QStringLiteral("city"));
    result.cities = 1;
    const auto grand = shows.addVenue(*city, QStringLiteral("Marquee Grand, Koregaon Park"), QStringLiteral("North Main Road, Koregaon Park"), QStringLiteral("INR"));
    const auto riverside = shows.addVenue(*city, QStringLiteral("Marquee Riverside"), QStringLiteral("Riverside Mall, Aundh"), QStringLiteral("INR"));
    const auto stadium = shows.addVenue(*city, QStringLiteral("Maharashtra Cricket Stadium"), QStringLiteral("Gahunje"), QStringLiteral("INR"));
    if (!grand || !riverside || !stadium)
        return fail(QStringLiteral("venues"));
    result.venues = 3;

    struct ScreenPlan {
        qint64 venue;
        QString name;
        store::NewLayout layout;
    };
    const QList<ScreenPlan> plans = {
        {*grand, QStringLiteral("Audi 1 — IMAX"), cinemaLayout(QStringLiteral("Grand Audi 1 (400)"), 16, 26, {7, 19}, 4, true)},
        {*grand, QStringLiteral("Audi 2"), cinemaLayout(QStringLiteral("Grand Audi 2 (250)"), 12, 22, {5, 17}, 3, false)},
        {*riverside, QStringLiteral("Screen 1"), cinemaLayout(QStringLiteral("Riverside 1 (150)"), 10, 16, {4, 12}, 2, false)},
        {*riverside, QStringLiteral("Screen 2 — Gold"), cinemaLayout(QStringLiteral("Riverside Gold (80)"), 8, 12, {6}, 2, true)},
    };
    QList<qint64> screenIds;
    for (const ScreenPlan &plan : plans) {
        const auto layoutId = shows.addLayout(plan.layout);
        if (!layoutId)
            return fail(plan.layout.name);
        const auto screenId = shows.addScreen(plan.venue, plan.name, *layoutId);
        if (!screenId)
            return fail(plan.name);
        screenIds << *screenId;
    }
    const auto stadiumLayoutId = shows.addLayout(demoStadiumLayout());
    if (!stadiumLayoutId)
        return fail(QStringLiteral("stadium layout"));
    const auto stadiumScreen = shows.addScreen(*stadium, QStringLiteral("Main bowl"), *stadiumLayoutId);
    if (!stadiumScreen)
        return fail(QStringLiteral("stadium screen"));
    result.screens = int(screenIds.size()) + 1;

    struct MovieSeed {
        const char *title;
        int runtime;
        const char *rating;
        QStringList genres;
        const char *synopsis;
    };
    const QList<MovieSeed> movieSeeds = {
        {"The Last Projectionist", 128, "UA", {QStringLiteral("Drama")}, "An old projectionist keeps a small-town cinema alive for one last summer."},
        {"Monsoon Heist", 142, "UA", {QStringLiteral("Action"), QStringLiteral("Thriller")}, "Four strangers plan to rob a bullion vault during the heaviest rains in a century."},
        {"Stardust Express", 96, "U", {QStringLiteral("Animation"), QStringLiteral("Family")}, "A runaway train to the moon and the girl who has to drive it."},
        {"Nine Lives of Meera", 118, "UA", {QStringLiteral("Comedy"), QStringLiteral("Drama")}, "A cat-sitter inherits a mansion, and its nine very opinionated cats."},
        {"Beneath the Ice", 135, "A", {QStringLiteral("Science fiction"), QStringLiteral("Thriller")}, "A drilling crew in Antarctica finds a signal that is older than the ice."},
    };
    QList<qint64> movieIds;
    for (const MovieSeed &m : movieSeeds) {
        const auto id = shows.addMovie(QString::fromUtf8(m.title), QStringLiteral("movie"), m.runtime, QString::fromLatin1(m.rating), m.genres,
                                       QString::fromUtf8(m.synopsis));
        if (!id)
            return fail(QString::fromUtf8(m.title));
        movieIds << *id;
    }
    const auto cricket = shows.addMovie(QStringLiteral("Cricket Final"), QStringLiteral("event"), 480, QStringLiteral("U"),
                                        {QStringLiteral("Sport")}, QStringLiteral("The championship final, live at the stadium."));
    if (!cricket)
        return fail(QStringLiteral("Cricket Final"));
    result.movies = int(movieIds.size()) + 1;

    // A week of shows from today, at local times; every screen rotates through the movies.
    const QTimeZone zone("Asia/Kolkata");
    const QDate today = QDateTime::currentDateTimeUtc().toTimeZone(zone).date();
    const QList<QTime> startTimes = {QTime(10, 0), QTime(13, 15), QTime(16, 30), QTime(19, 45), QTime(22, 30)};
    const QDateTime salesOpen = QDateTime::currentDateTimeUtc().addDays(-1);
    int rotation = 0;
    for (int day = 0; day < 7; ++day) {
        for (int s = 0; s < screenIds.size(); ++s) {
            for (const QTime &slot : startTimes) {
                const qint64 movie = movieIds[(rotation++ + s) % movieIds.size()];
                store::NewShow show;
                show.movieId = movie;
                show.screenId = screenIds[s];
                show.startsAt = QDateTime(today.addDays(day), slot, zone);
                show.salesOpenAt = std::min(salesOpen, show.startsAt.addSecs(-3600));
                show.currency = QStringLiteral("INR");
                show.prices = {{QStringLiteral("standard"), 25000 + 2500 * (slot.hour() >= 19)},
                               {QStringLiteral("premium"), 40000 + 5000 * (slot.hour() >= 19)},
                               {QStringLiteral("recliner"), 65000}};
                QString why;
                if (!shows.addShow(show, &why))
                    return fail(QStringLiteral("show: %1").arg(why));
                ++result.shows;
            }
        }
    }
    store::NewShow final_;
    final_.movieId = *cricket;
    final_.screenId = *stadiumScreen;
    final_.startsAt = QDateTime(today.addDays(3), QTime(14, 0), zone);
    final_.salesOpenAt = salesOpen;
    final_.currency = QStringLiteral("INR");
    final_.prices = {{QStringLiteral("upper"), 150000}, {QStringLiteral("lower"), 300000}, {QStringLiteral("pavilion"), 750000}};
    const auto finalId = shows.addShow(final_);
    if (!finalId)
        return fail(QStringLiteral("Cricket Final show"));
    result.stadiumShowId = *finalId;
    ++result.shows;
    return result;
}

std::optional<qint64> seedStadiumShow(const store::Database &database, int seats, QString *error)
{
    if (seats < 1000 || seats % 1000 != 0) {
        *error = QStringLiteral("the seat count must be a positive multiple of 1000");
        return std::nullopt;
    }
    store::ShowRepository shows(database);
    const QString name = QStringLiteral("Stadium of %1 seats").arg(seats);
    // Four stands of blocks of 25 rows of 10 seats.
    const auto city = shows.addCity(QStringLiteral("Benchmark city %1").arg(seats), QStringLiteral("IN"), QStringLiteral("Asia/Kolkata"));
    const auto venue = city ? shows.addVenue(*city, name, QStringLiteral("-"), QStringLiteral("INR")) : std::nullopt;
    const auto layout = venue ? shows.addLayout(stadiumLayout(name, seats / 1000, 25, 10)) : std::nullopt;
    const auto screen = layout ? shows.addScreen(*venue, QStringLiteral("Bowl"), *layout) : std::nullopt;
    const auto event = screen ? shows.addMovie(name, QStringLiteral("event"), 480, QStringLiteral("U"), {QStringLiteral("Sport")}, QStringLiteral("-"))
                              : std::nullopt;
    if (!event) {
        *error = QStringLiteral("could not create the venue, layout or event");
        return std::nullopt;
    }
    store::NewShow show;
    show.movieId = *event;
    show.screenId = *screen;
    show.startsAt = QDateTime::currentDateTimeUtc().addDays(3);
    show.salesOpenAt = QDateTime::currentDateTimeUtc().addDays(-1);
    show.currency = QStringLiteral("INR");
    show.prices = {{QStringLiteral("upper"), 150000}, {QStringLiteral("lower"), 300000}, {QStringLiteral("pavilion"), 750000}};
    const auto showId = shows.addShow(show, error);
    if (!showId && error->isEmpty())
        *error = QStringLiteral("could not create the show");
    return showId;
}

} // namespace marquee
