// SPDX-License-Identifier: AGPL-3.0-or-later
// The flash-sale scenario at 1/50 scale as a correctness test: 40,000 users, 800 seats. A real server
// and a real marquee-paysim on loopback, driven by the real build/bin/marquee-load; the run must sell out with every
// invariant of the load generator's check holding (seats booked = seats of confirmed bookings, no seat twice, no
// oversell, admission in queue order, every waiting user told). Not a timing test: figures are printed, not judged.
#include "paysimprocess.h"

#include <QLoggingCategory>
#include <QProcess>
#include <QTemporaryFile>

using namespace marquee;
using namespace marquee::test;

TEST(FlashSale, FortyThousandUsersSellEightHundredSeatsExactlyOnce)
{
    // One debug line per request would cost more than the requests: 40,000 users make a few hundred thousand.
    QLoggingCategory::setFilterRules(QStringLiteral("marquee.http.debug=false"));
    TestServer::Options options;
    options.paymentWebhookSecret = PaySimProcess::kSecret;
    options.threads = 16; // many concurrent commits, which share a WAL flush
    TestServer server(options);
    PaySimProcess paysim(server, {});
    ASSERT_NE(paysim.port(), 0);
    const qint64 showId = server.createShow(20, 40);

    QTemporaryFile tokens;
    ASSERT_TRUE(tokens.open());
    for (int i = 0; i < 16; ++i)
        tokens.write(server.deviceToken().toLatin1() + '\n');
    tokens.flush();

    QProcess load;
    load.setProgram(QCoreApplication::applicationDirPath() + QStringLiteral("/marquee-load"));
    load.setArguments({QStringLiteral("flash-sale"),
                       QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:%1").arg(server.port()),
                       QStringLiteral("--show"), QString::number(showId),
                       QStringLiteral("--tokens"), tokens.fileName(),
                       QStringLiteral("--manager-token"), server.staffToken(QStringLiteral("manager")),
                       QStringLiteral("--users"), QStringLiteral("40000"),
                       QStringLiteral("--open-after"), QStringLiteral("5"),
                       QStringLiteral("--paysim"), QStringLiteral("http://127.0.0.1:%1").arg(paysim.port()),
                       QStringLiteral("--clients"), QStringLiteral("32"),
                       QStringLiteral("--max-poll-ms"), QStringLiteral("3000"),
                       QStringLiteral("--duration"), QStringLiteral("100"),
                       QStringLiteral("--database-url"), server.databaseUrl(),
                       QStringLiteral("--seed"), QStringLiteral("6")});
    load.setProcessChannelMode(QProcess::MergedChannels);
    load.start();
    ASSERT_TRUE(load.waitForStarted(10000)) << load.errorString().toStdString();
    const bool finished = load.waitForFinished(150000);
    const QByteArray output = load.readAll();
    std::printf("%s", output.constData());
    ASSERT_TRUE(finished) << "marquee-load flash-sale did not finish";
    EXPECT_EQ(load.exitStatus(), QProcess::NormalExit);
    EXPECT_EQ(load.exitCode(), 0);
    EXPECT_TRUE(output.contains("invariants=ok"));
    EXPECT_TRUE(output.contains("oversold=0"));
    EXPECT_TRUE(output.contains("bought_seats=800 "));
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = 'booked'").arg(showId)).toInt(), 800);
}
