// SPDX-License-Identifier: AGPL-3.0-or-later
// Times in the venue's zone, whatever the machine's zone: display, and reading what a person typed.
#include "core/venuetime.h"

#include <gtest/gtest.h>
#include "tests/support/machinezone.h"

using namespace marquee;

using marquee::test::MachineZone;

namespace {
const QLocale kEnglish(QLocale::English, QLocale::UnitedKingdom);

QDateTime utc(const char *iso)
{
    return QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODate).toUTC();
}

} // namespace

TEST(VenueTime, UnknownZoneIsUtcNotTheMachines)
{
    EXPECT_EQ(venueZone(QStringLiteral("Asia/Kolkata")).id(), QByteArray("Asia/Kolkata"));
    EXPECT_EQ(venueZone(QStringLiteral("Mars/Olympus")).offsetFromUtc(utc("2026-06-01T00:00:00Z")), 0);
    EXPECT_EQ(venueZone(QString()).offsetFromUtc(utc("2026-06-01T00:00:00Z")), 0);
}

TEST(VenueTime, KolkataOnAUtcMachine)
{
    MachineZone machine("UTC");
    const QTimeZone kolkata = venueZone(QStringLiteral("Asia/Kolkata"));
    const QDateTime show = utc("2026-12-05T07:45:00Z");
    EXPECT_EQ(venueTimeText(show, kolkata, QStringLiteral("HH:mm"), kEnglish), QStringLiteral("13:15 IST"));
    EXPECT_EQ(venueTimeText(show, kolkata, QStringLiteral("HH:mm"), kEnglish, ZoneLabel::Never), QStringLiteral("13:15"));
    // 23:30 UTC is already the next day in Kolkata.
    EXPECT_EQ(venueDate(utc("2026-12-05T23:30:00Z"), kolkata), QDate(2026, 12, 6));
    EXPECT_EQ(venueTimeText(utc("2026-12-05T23:30:00Z"), kolkata, QStringLiteral("ddd d MMM HH:mm"), kEnglish),
              QStringLiteral("Sun 6 Dec 05:00 IST"));
}

TEST(VenueTime, KolkataOnAKolkataMachineNeedsNoLabel)
{
    MachineZone machine("Asia/Kolkata");
    const QTimeZone kolkata = venueZone(QStringLiteral("Asia/Kolkata"));
    EXPECT_FALSE(zoneLabelNeeded(utc("2026-12-05T07:45:00Z"), kolkata));
    EXPECT_EQ(venueTimeText(utc("2026-12-05T07:45:00Z"), kolkata, QStringLiteral("HH:mm"), kEnglish), QStringLiteral("13:15"));
    EXPECT_EQ(venueTimeText(utc("2026-12-05T07:45:00Z"), kolkata, QStringLiteral("HH:mm"), kEnglish, ZoneLabel::Always),
              QStringLiteral("13:15 IST"));
}

TEST(VenueTime, KolkataHasNoDaylightSaving)
{
    const QTimeZone kolkata = venueZone(QStringLiteral("Asia/Kolkata"));
    // Berlin's spring and autumn changes leave Kolkata at +05:30.
    for (const char *iso : {"2026-03-29T00:30:00Z", "2026-03-29T01:30:00Z", "2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z"})
        EXPECT_EQ(kolkata.offsetFromUtc(utc(iso)), 19800) << iso;
    const VenueLocalTime parsed = parseVenueLocal(QStringLiteral("2026-03-29 02:30"), kolkata);
    EXPECT_EQ(parsed.kind, VenueLocalTime::Kind::Exact);
    EXPECT_EQ(parsed.utc, utc("2026-03-28T21:00:00Z"));
    EXPECT_EQ(parsed.abbreviation, QStringLiteral("IST"));
}

TEST(VenueTime, BerlinAcrossTheSpringChange)
{
    MachineZone machine("Europe/Berlin");
    const QTimeZone berlin = venueZone(QStringLiteral("Europe/Berlin"));
    // The clocks go from 02:00 CET to 03:00 CEST at 01:00 UTC on 29 March 2026.
    EXPECT_EQ(venueTimeText(utc("2026-03-29T00:59:00Z"), berlin, QStringLiteral("HH:mm"), kEnglish), QStringLiteral("01:59"));
    EXPECT_EQ(venueTimeText(utc("2026-03-29T01:00:00Z"), berlin, QStringLiteral("HH:mm"), kEnglish), QStringLiteral("03:00"));
    EXPECT_EQ(venueTimeText(utc("2026-03-29T01:00:00Z"), berlin, QStringLiteral("HH:mm"), kEnglish, ZoneLabel::Always),
              QStringLiteral("03:00 CEST"));
    EXPECT_EQ(venueTimeText(utc("2026-03-28T18:00:00Z"), berlin, QStringLiteral("HH:mm"), kEnglish, ZoneLabel::Always),
              QStringLiteral("19:00 CET"));
    // 02:30 does not exist that night: it is refused, not moved.
    const VenueLocalTime gap = parseVenueLocal(QStringLiteral("2026-03-29 02:30"), berlin);
    EXPECT_EQ(gap.kind, VenueLocalTime::Kind::Gap);
    EXPECT_FALSE(gap.utc.isValid());
    EXPECT_EQ(parseVenueLocal(QStringLiteral("2026-03-29 01:59"), berlin).utc, utc("2026-03-29T00:59:00Z"));
    EXPECT_EQ(parseVenueLocal(QStringLiteral("2026-03-29 03:00"), berlin).utc, utc("2026-03-29T01:00:00Z"));
    // The same wall time either side of the change is a different offset.
    EXPECT_EQ(parseVenueLocal(QStringLiteral("2026-03-28 19:30"), berlin).utc, utc("2026-03-28T18:30:00Z"));
    EXPECT_EQ(parseVenueLocal(QStringLiteral("2026-03-29 19:30"), berlin).utc, utc("2026-03-29T17:30:00Z"));
}

TEST(VenueTime, BerlinAcrossTheAutumnChange)
{
    MachineZone machine("Europe/Berlin");
    const QTimeZone berlin = venueZone(QStringLiteral("Europe/Berlin"));
    // 03:00 CEST becomes 02:00 CET at 01:00 UTC on 25 October 2026: 02:00–02:59 happens twice.
    const VenueLocalTime twice = parseVenueLocal(QStringLiteral("2026-10-25 02:30"), berlin);
    EXPECT_EQ(twice.kind, VenueLocalTime::Kind::Ambiguous);
    EXPECT_EQ(twice.utc, utc("2026-10-25T00:30:00Z"));
    EXPECT_EQ(twice.laterUtc, utc("2026-10-25T01:30:00Z"));
    EXPECT_EQ(twice.abbreviation, QStringLiteral("CEST"));
    // Shown, the two are told apart by their abbreviation even on a Berlin machine.
    EXPECT_EQ(venueTimeText(twice.utc, berlin, QStringLiteral("HH:mm"), kEnglish), QStringLiteral("02:30 CEST"));
    EXPECT_EQ(venueTimeText(twice.laterUtc, berlin, QStringLiteral("HH:mm"), kEnglish), QStringLiteral("02:30 CET"));
    EXPECT_EQ(venueTimeText(utc("2026-10-25T18:30:00Z"), berlin, QStringLiteral("HH:mm"), kEnglish), QStringLiteral("19:30"));
    EXPECT_EQ(parseVenueLocal(QStringLiteral("2026-10-25 19:30"), berlin).kind, VenueLocalTime::Kind::Exact);
    EXPECT_EQ(parseVenueLocal(QStringLiteral("2026-10-25 19:30"), berlin).utc, utc("2026-10-25T18:30:00Z"));
    EXPECT_EQ(parseVenueLocal(QStringLiteral("2026-10-24 19:30"), berlin).utc, utc("2026-10-24T17:30:00Z"));
}

TEST(VenueTime, BerlinShownOnAKolkataMachine)
{
    MachineZone machine("Asia/Kolkata");
    const QTimeZone berlin = venueZone(QStringLiteral("Europe/Berlin"));
    EXPECT_EQ(venueTimeText(utc("2026-07-01T17:30:00Z"), berlin, QStringLiteral("d MMM HH:mm"), kEnglish), QStringLiteral("1 Jul 19:30 CEST"));
    EXPECT_EQ(venueTimeText(utc("2026-12-01T18:30:00Z"), berlin, QStringLiteral("d MMM HH:mm"), kEnglish), QStringLiteral("1 Dec 19:30 CET"));
}

TEST(VenueTime, ParsesTypedTimes)
{
    const QTimeZone kolkata = venueZone(QStringLiteral("Asia/Kolkata"));
    EXPECT_EQ(parseVenueLocal(QStringLiteral(" 2026-12-05 13:15 "), kolkata).utc, utc("2026-12-05T07:45:00Z"));
    EXPECT_EQ(parseVenueLocal(QStringLiteral("2026-12-05T13:15:30"), kolkata).utc, utc("2026-12-05T07:45:30Z"));
    EXPECT_EQ(parseVenueLocal(QStringLiteral("2026-12-05 9:05"), kolkata).utc, utc("2026-12-05T03:35:00Z"));
    // An explicit offset names the instant already.
    EXPECT_EQ(parseVenueLocal(QStringLiteral("2026-12-05T13:15:00Z"), kolkata).utc, utc("2026-12-05T13:15:00Z"));
    EXPECT_EQ(parseVenueLocal(QStringLiteral("2026-12-05T13:15:00+01:00"), kolkata).utc, utc("2026-12-05T12:15:00Z"));
    for (const char *bad : {"", "tomorrow", "2026-13-05 13:15", "2026-12-05 25:00", "2026-12-05", "05.12.2026 13:15", "2026-02-30 10:00"})
        EXPECT_EQ(parseVenueLocal(QString::fromLatin1(bad), kolkata).kind, VenueLocalTime::Kind::Invalid) << bad;
}
