// SPDX-License-Identifier: AGPL-3.0-or-later
// A kiosk or till pairs itself: the first-run screen (Pairing/PairingMain.qml, walked offscreen with screenshots:
// empty, a certificate that does not match, paired, a code used already) and `marquee --pair` with the code on
// standard input, both against a real in-process server behind a TLS front with the venue's own certificate
// (marquee-admin tls init). The venue CA is fetched unverified, kept only when it has the typed fingerprint, and
// then the only anchor of the pairing and of every later request; the credentials file is 0600 and the token is
// never on screen. Wrong, expired and used codes, a locked pairing and an unreachable server say what to do.
#include "appconfig.h"
#include "devicecredentials.h"
#include "devicepairing.h"
#include "printedqr.h"
#include "core/pairingscan.h"
#include "kioskapp.h"
#include "quickitems.h"
#include "screenshots.h"
#include "testserver.h"

#include "runtime/venuetls.h"
#include "store/pairingrepository.h"
#include "sync/apiclient.h"

#include <QDir>
#include <QImage>
#include <QFile>
#include <QProcess>
#include <QQmlApplicationEngine>
#include <QQuickWindow>
#include <QSslKey>
#include <QSslServer>
#include <QSslSocket>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTranslator>
#include <gtest/gtest.h>
#include <sys/stat.h>

using namespace marquee;
using namespace marquee::app;

namespace {
const QString kShots = test::screenshotDir(QStringLiteral(MARQUEE_SCREENSHOT_DIR));

QByteArray contents(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

/** @brief A venue CA and server certificate for 127.0.0.1 in @p dir (marquee-admin tls init). */
void venue(const QString &dir)
{
    QString error;
    const auto subject = VenueTls::subject({QStringLiteral("tickets.venue.test")}, {QStringLiteral("127.0.0.1")}, &error);
    ASSERT_TRUE(subject && VenueTls::init(dir, *subject, false, &error)) << error.toStdString();
}

QString fingerprint(const QString &dir)
{
    return VenueTls::fingerprint(contents(VenueTls::caCertificateFile(dir)));
}

/**
 * @brief What marquee-proxy is at a venue, in this process: TLS with the venue's server certificate in front of a
 * plain backend port; every connection is piped through as it is.
 */
class TlsFront
{
public:
    TlsFront(const QString &dir, quint16 backend)
    {
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setLocalCertificate(QSslCertificate(contents(VenueTls::serverCertificateFile(dir))));
        tls.setPrivateKey(QSslKey(contents(VenueTls::serverKeyFile(dir)), QSsl::Ec));
        tls.setPeerVerifyMode(QSslSocket::VerifyNone);
        m_server.setSslConfiguration(tls);
        QObject::connect(&m_server, &QSslServer::pendingConnectionAvailable, [this, backend] {
            while (QTcpSocket *front = m_server.nextPendingConnection()) {
                auto *back = new QTcpSocket(front);
                back->connectToHost(QHostAddress::LocalHost, backend);
                QObject::connect(front, &QIODevice::readyRead, back, [front, back] { back->write(front->readAll()); });
                QObject::connect(back, &QIODevice::readyRead, front, [front, back] { front->write(back->readAll()); });
                QObject::connect(back, &QAbstractSocket::disconnected, front, [front] { front->disconnectFromHost(); });
                QObject::connect(front, &QAbstractSocket::disconnected, front, &QObject::deleteLater);
                ++m_connections;
            }
        });
        m_server.listen(QHostAddress::LocalHost, 0);
    }
    quint16 port() const { return m_server.serverPort(); }
    QString url() const { return QStringLiteral("https://127.0.0.1:%1").arg(port()); }

private:
    QSslServer m_server;
    int m_connections = 0;
};

QString newCode(test::TestServer &server, const QString &name, Role role = Role::Kiosk)
{
    QString error;
    const auto code = store::PairingRepository(server.context().database).create(name, role, store::PairingRepository::kValidSeconds, &error);
    EXPECT_TRUE(code) << error.toStdString();
    return code ? store::PairingRepository::display(code->code) : QString();
}

int mode(const QString &path)
{
    struct stat info {};
    return ::stat(QFile::encodeName(path).constData(), &info) == 0 ? int(info.st_mode & 0777) : -1;
}

/** @brief Every text shown in @p item's visual tree (Text, TextField, buttons...). */
void shownTexts(QQuickItem *item, QStringList &texts)
{
    if (!item->isVisible())
        return;
    const QVariant text = item->property("text");
    if (text.isValid())
        texts << text.toString();
    for (QQuickItem *child : item->childItems())
        shownTexts(child, texts);
}

/** @brief One attempt of @p pairing, waited for with the event loop running (the TLS front lives on it). */
bool attempt(DevicePairing &pairing, const QString &server, const QString &code, const QString &fingerprint)
{
    pairing.pair(server, code, fingerprint);
    return QTest::qWaitFor([&] { return !pairing.busy(); }, 30000);
}

DevicePairing::Options optionsIn(const QTemporaryDir &dir, const QString &server = {})
{
    DevicePairing::Options options;
    options.server = QUrl(server);
    options.credentialsPath = dir.filePath(QStringLiteral("state/device.json"));
    options.timeoutMs = 8000;
    return options;
}

struct Venue {
    QTemporaryDir dir;
    QString tls = dir.filePath(QStringLiteral("tls"));
    QString otherTls = dir.filePath(QStringLiteral("other"));
    Venue()
    {
        venue(tls);
        venue(otherTls);
    }
    test::TestServer::Options serverOptions() const
    {
        const QString ca = VenueTls::caCertificateFile(tls);
        return test::TestServer::Options::withConfig([ca](ServerConfig &config) {
            config.venueCaFile = ca;
            config.pairingFailuresPerAddress = 50; // this test's own wrong codes must not lock it out
        });
    }
};

/** @brief The pairing screen of @p pairing in a window of @p size (the app's own QML file). */
class PairingWindow
{
public:
    PairingWindow(DevicePairing &pairing, QSize size)
    {
        DevicePairing::setInstance(&pairing);
        applyLanguage(m_translator, test::screenshotLanguage());
        m_engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
        m_engine.load(QUrl(QStringLiteral("qrc:/qt/qml/Marquee/Ui/Pairing/PairingMain.qml")));
        m_window = m_engine.rootObjects().isEmpty() ? nullptr : qobject_cast<QQuickWindow *>(m_engine.rootObjects().first());
        if (m_window) {
            m_window->resize(size);
            // Laid out before anything is clicked: a button has its place only after the first polish.
            QTest::qWaitForWindowExposed(m_window);
            m_window->grabWindow();
        }
    }
    ~PairingWindow()
    {
        DevicePairing::setInstance(nullptr);
        applyLanguage(m_translator, QStringLiteral("en"));
    }
    QQuickWindow *window() const { return m_window; }
    QQuickItem *item(const QString &name) const { return test::itemNamed(m_window, name); }
    void type(const QString &field, const QString &text) { item(field)->setProperty("text", text); }
    void click(const QString &name)
    {
        QQuickItem *button = item(name);
        ASSERT_NE(button, nullptr) << name.toStdString();
        ASSERT_TRUE(button->isEnabled()) << name.toStdString();
        QTest::mouseClick(m_window, Qt::LeftButton, {}, button->mapToScene(QPointF(button->width() / 2, button->height() / 2)).toPoint());
    }
    QImage save(const QString &name)
    {
        QTest::qWait(50); // the layout of what just changed
        const QImage image = m_window->grabWindow();
        QDir().mkpath(kShots);
        EXPECT_TRUE(image.save(kShots + QStringLiteral("/") + name)) << (kShots + QStringLiteral("/") + name).toStdString();
        return image;
    }
    QStringList texts() const
    {
        QStringList all;
        shownTexts(m_window->contentItem(), all);
        return all;
    }

private:
    QTranslator m_translator;
    QQmlApplicationEngine m_engine;
    QQuickWindow *m_window = nullptr;
};
} // namespace

// --- the screen ------------------------------------------------------------------------------------------------

TEST(PairingUi, TheScreenPairsOverHttpsOnlyThroughTheVenueCertificateItWasToldOf)
{
    Venue venue;
    test::TestServer server(venue.serverOptions());
    TlsFront front(venue.tls, server.port());
    ASSERT_NE(front.port(), 0);
    const QString code = newCode(server, QStringLiteral("lobby-pair"));
    QTemporaryDir state;
    DevicePairing pairing(optionsIn(state, front.url()));
    PairingWindow ui(pairing, QSize(1920, 1080));
    ASSERT_NE(ui.window(), nullptr) << "PairingMain.qml did not load";

    // Empty: the address comes from --server, the code and the fingerprint are typed.
    ui.save(QStringLiteral("pairing-empty.png"));
    EXPECT_EQ(test::unexpectedGraphicsApi(ui.window()), QString());
    EXPECT_EQ(ui.item(QStringLiteral("pairingServer"))->property("text").toString(), front.url());
    EXPECT_EQ(ui.item(QStringLiteral("pairingError")), nullptr);

    // Another venue's fingerprint: the certificate the server sent is not trusted and the code is not sent.
    ui.type(QStringLiteral("pairingCode"), code.toLower());
    ui.type(QStringLiteral("pairingFingerprint"), fingerprint(venue.otherTls));
    ui.click(QStringLiteral("pairButton"));
    ASSERT_TRUE(QTest::qWaitFor([&] { return pairing.state() == QLatin1String("failed"); }, 30000)) << pairing.state().toStdString();
    EXPECT_EQ(pairing.errorKind(), QStringLiteral("ca_mismatch")) << pairing.errorString().toStdString();
    ASSERT_NE(ui.item(QStringLiteral("pairingError")), nullptr);
    EXPECT_TRUE(ui.texts().join(QLatin1Char('\n')).contains(test::shown("PairingMain", "The venue certificate does not match")));
    ui.save(QStringLiteral("pairing-error-certificate.png"));
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM devices WHERE name = 'lobby-pair'")).toInt(), 0);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM pairing_codes WHERE device_name = 'lobby-pair' AND used_at IS NULL")).toInt(), 1)
        << "the code was spent on a server the device did not trust";
    EXPECT_FALSE(QFile::exists(state.filePath(QStringLiteral("state/device.json"))));

    // The right one, typed as marquee-admin prints it but in lower case without colons: paired.
    ui.type(QStringLiteral("pairingFingerprint"), DevicePairing::normalizedFingerprint(fingerprint(venue.tls)).toLower());
    ui.click(QStringLiteral("pairButton"));
    ASSERT_TRUE(QTest::qWaitFor([&] { return pairing.state() == QLatin1String("paired"); }, 30000))
        << pairing.errorKind().toStdString() << ": " << pairing.errorString().toStdString();
    ASSERT_NE(ui.item(QStringLiteral("pairingSuccess")), nullptr);
    ASSERT_NE(ui.item(QStringLiteral("continueButton")), nullptr);
    ui.save(QStringLiteral("pairing-paired.png"));

    // Saved 0600 in a 0700 folder, with the token, the role, the server and the venue CA it verified.
    const QString path = state.filePath(QStringLiteral("state/device.json"));
    EXPECT_EQ(mode(path), 0600);
    EXPECT_EQ(mode(state.filePath(QStringLiteral("state"))), 0700);
    QString error;
    const auto stored = DeviceCredentials::load(path, &error);
    ASSERT_TRUE(stored) << error.toStdString();
    EXPECT_EQ(stored->deviceName, QStringLiteral("lobby-pair"));
    EXPECT_EQ(stored->role, QStringLiteral("kiosk"));
    EXPECT_EQ(stored->server, QUrl(front.url()));
    EXPECT_EQ(DevicePairing::fingerprintOf(stored->caPem), fingerprint(venue.tls));
    ASSERT_FALSE(stored->token.isEmpty());
    // The token is its token, and it is on no screen.
    EXPECT_EQ(server.client(stored->token)->get("/api/v1/cities").status, 200);
    for (const QString &text : ui.texts())
        EXPECT_FALSE(text.contains(stored->token)) << "the token is on screen: " << text.toStdString();
    EXPECT_EQ(pairing.property("token"), QVariant()) << "QML can read the token";

    // The same code once more, as another device would: used, and the screen says to ask for a new one.
    QTemporaryDir otherState;
    DevicePairing again(optionsIn(otherState, front.url()));
    {
        PairingWindow second(again, QSize(1920, 1080));
        ASSERT_NE(second.window(), nullptr);
        // This one reads marquee-admin's pairing QR with its scanner: the scanner types it into the code field and
        // presses Enter; code and fingerprint land in their fields and the device pairs (the venue CA checked, so
        // the refusal is the server's: the code was used).
        second.item(QStringLiteral("pairingCode"))->forceActiveFocus();
        for (const QChar c : pairingScanText(code, fingerprint(venue.tls)))
            QTest::keyClick(second.window(), c.toLatin1());
        QTest::keyClick(second.window(), Qt::Key_Return);
        ASSERT_TRUE(QTest::qWaitFor([&] { return again.state() == QLatin1String("failed"); }, 30000));
        EXPECT_EQ(again.errorKind(), QStringLiteral("code_used")) << again.errorString().toStdString();
        EXPECT_EQ(second.item(QStringLiteral("pairingCode"))->property("text").toString(), code);
        EXPECT_EQ(second.item(QStringLiteral("pairingFingerprint"))->property("text").toString(), fingerprint(venue.tls));
        EXPECT_TRUE(second.texts().join(QLatin1Char('\n')).contains(test::shown("PairingMain", "This code was used already")));
        second.save(QStringLiteral("pairing-error-used.png"));
    }
    EXPECT_FALSE(QFile::exists(otherState.filePath(QStringLiteral("state/device.json"))));

    // Continue leaves the screen for the role's screens.
    bool proceeded = false;
    QObject::connect(&pairing, &DevicePairing::proceedRequested, [&proceeded] { proceeded = true; });
    ui.click(QStringLiteral("continueButton"));
    EXPECT_TRUE(QTest::qWaitFor([&] { return proceeded; }, 5000));
}

// --- headless and the refusals ---------------------------------------------------------------------------------

namespace {
struct HeadlessRun {
    int exitCode = -1;
    QString out;
    QString err;
};

/** @brief The installed way: `marquee --pair ARGS` with @p code on standard input, the event loop running. */
HeadlessRun pairWithTheApp(const QStringList &arguments, const QString &code, const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment())
{
    QProcess app;
    app.setProcessEnvironment(environment);
    app.start(QCoreApplication::applicationDirPath() + QStringLiteral("/marquee"), QStringList{QStringLiteral("--pair")} + arguments);
    HeadlessRun run;
    if (!app.waitForStarted(10000))
        return run;
    app.write(code.toUtf8() + "\n");
    app.closeWriteChannel();
    if (!QTest::qWaitFor([&] { return app.state() == QProcess::NotRunning; }, 60000))
        app.kill();
    app.waitForFinished(5000);
    run.exitCode = app.exitStatus() == QProcess::NormalExit ? app.exitCode() : -1;
    run.out = QString::fromUtf8(app.readAllStandardOutput());
    run.err = QString::fromUtf8(app.readAllStandardError());
    return run;
}
} // namespace

/** @brief The environment of a headless `marquee --pair`: its data under @p home, and no display at all. */
QProcessEnvironment headlessEnvironment(const QTemporaryDir &home)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_DATA_HOME"), home.filePath(QStringLiteral("data")));
    environment.remove(QStringLiteral("DISPLAY"));
    environment.remove(QStringLiteral("WAYLAND_DISPLAY"));
    environment.remove(QStringLiteral("QT_QPA_PLATFORM")); // it needs none
    return environment;
}

/**
 * @brief `marquee-admin device add --pairing --venue-ca-file` for @p name as @p role, as an installer runs it:
 * what it printed, line by line (the code is the last line); false (and why, as a test failure) if it failed.
 */
bool addPairingCode(test::TestServer &server, const Venue &venue, const QString &name, const QString &role, QStringList *printed)
{
    QProcess admin;
    admin.start(QCoreApplication::applicationDirPath() + QStringLiteral("/marquee-admin"),
                {QStringLiteral("--database-url"), server.databaseUrl(), QStringLiteral("--data-dir"), server.dataDirectory(), QStringLiteral("device"),
                 QStringLiteral("add"), QStringLiteral("--name"), name, QStringLiteral("--role"), role, QStringLiteral("--pairing"),
                 QStringLiteral("--venue-ca-file"), VenueTls::caCertificateFile(venue.tls)});
    if (!admin.waitForFinished(60000) || admin.exitCode() != 0) {
        ADD_FAILURE() << "marquee-admin device add --pairing: " << admin.readAllStandardError().constData();
        return false;
    }
    *printed = QString::fromUtf8(admin.readAllStandardOutput()).trimmed().split(QLatin1Char('\n'));
    return true;
}

/**
 * @brief The QR marquee-admin drew on the terminal (half blocks, the blocks being the light modules) as an image a
 * scanner would see: 8 pixels a module, light white, dark black.
 */
QImage terminalQrImage(const QStringList &lines)
{
    constexpr int kModule = 8;
    const int width = lines.isEmpty() ? 0 : int(lines.first().size());
    QImage image(width * kModule, int(lines.size()) * 2 * kModule, QImage::Format_Grayscale8);
    image.fill(0);
    for (int row = 0; row < lines.size(); ++row)
        for (int x = 0; x < lines.at(row).size() && x < width; ++x) {
            const QChar c = lines.at(row).at(x);
            const bool top = c == QChar(0x2588) || c == QChar(0x2580);
            const bool bottom = c == QChar(0x2588) || c == QChar(0x2584);
            for (int dy = 0; dy < kModule; ++dy)
                for (int dx = 0; dx < kModule; ++dx) {
                    if (top)
                        image.setPixel(x * kModule + dx, row * 2 * kModule + dy, qRgb(255, 255, 255));
                    if (bottom)
                        image.setPixel(x * kModule + dx, (row * 2 + 1) * kModule + dy, qRgb(255, 255, 255));
                }
        }
    return image;
}

TEST(AppPairing, ThePairingQrOfMarqueeAdminCarriesCodeAndFingerprintSoAScannerPairsWithoutTypingEither)
{
    Venue venue;
    test::TestServer server(venue.serverOptions());
    TlsFront front(venue.tls, server.port());
    QStringList printed;
    ASSERT_TRUE(addPairingCode(server, venue, QStringLiteral("kiosk-qr"), QStringLiteral("kiosk"), &printed));
    const qsizetype qrStart = printed.indexOf(QRegularExpression(QStringLiteral(".* as a QR for the device's scanner:"))) + 1;
    const qsizetype qrEnd = printed.indexOf(QRegularExpression(QStringLiteral("device 'kiosk-qr' .*")));
    ASSERT_GT(qrStart, 0) << printed.join(QLatin1Char('\n')).toStdString();
    ASSERT_GT(qrEnd, qrStart + 10) << printed.join(QLatin1Char('\n')).toStdString();
    const QString code = printed.at(qrEnd + 1).trimmed();

    // An independent decoder (zxing-cpp) reads what the terminal shows.
    const QString scanned = apptest::decodeQr(terminalQrImage(printed.mid(qrStart, qrEnd - qrStart)));
    EXPECT_EQ(scanned, QStringLiteral("MQPAIR1/%1/%2").arg(code, fingerprint(venue.tls)));

    QTemporaryDir home;
    const QProcessEnvironment environment = headlessEnvironment(home);
    // A fingerprint typed as well must be the scanned one: another venue's is refused, the code stays unused.
    const HeadlessRun contradicted
        = pairWithTheApp({QStringLiteral("--server"), front.url(), QStringLiteral("--ca-fingerprint"), fingerprint(venue.otherTls)}, scanned, environment);
    EXPECT_EQ(contradicted.exitCode, 1) << contradicted.err.toStdString();
    EXPECT_TRUE(contradicted.err.contains(QStringLiteral("fingerprint_format"))) << contradicted.err.toStdString();
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM pairing_codes WHERE device_name = 'kiosk-qr' AND used_at IS NULL")).toInt(), 1);
    // The scan alone pairs, the venue CA checked against the fingerprint it carries.
    const HeadlessRun paired = pairWithTheApp({QStringLiteral("--server"), front.url()}, scanned, environment);
    ASSERT_EQ(paired.exitCode, 0) << paired.err.toStdString();
    EXPECT_TRUE(paired.out.contains(QStringLiteral("(venue CA verified)"))) << paired.out.toStdString();
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM devices WHERE name = 'kiosk-qr'")).toInt(), 1);
}

TEST(AppPairing, HeadlessPairsWithTheCodeFromStandardInputOnceAndTheAppStartsFromTheFile)
{
    Venue venue;
    test::TestServer server(venue.serverOptions());
    TlsFront front(venue.tls, server.port());
    // The code as the installer gets it: marquee-admin prints the venue CA's fingerprint, and the code last.
    QStringList printed;
    ASSERT_TRUE(addPairingCode(server, venue, QStringLiteral("till-pair"), QStringLiteral("till"), &printed));
    const QString code = printed.last();
    ASSERT_TRUE(printed.first().startsWith(QStringLiteral("venue CA SHA-256 fingerprint"))) << printed.join(QLatin1Char('\n')).toStdString();
    EXPECT_TRUE(printed.first().endsWith(fingerprint(venue.tls))) << printed.first().toStdString();
    // A file that holds no certificate: refused before a code is made.
    QProcess badAdmin;
    badAdmin.start(QCoreApplication::applicationDirPath() + QStringLiteral("/marquee-admin"),
                   {QStringLiteral("--database-url"), server.databaseUrl(), QStringLiteral("--data-dir"), server.dataDirectory(), QStringLiteral("device"),
                    QStringLiteral("add"), QStringLiteral("--name"), QStringLiteral("till-other"), QStringLiteral("--role"), QStringLiteral("till"),
                    QStringLiteral("--pairing"), QStringLiteral("--venue-ca-file"), VenueTls::serverKeyFile(venue.tls)});
    ASSERT_TRUE(badAdmin.waitForFinished(60000));
    EXPECT_EQ(badAdmin.exitCode(), 2);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM pairing_codes WHERE device_name = 'till-other'")).toInt(), 0);

    // The venue CA the device fetches: the PEM of --venue-ca-file, to anyone.
    const auto ca = server.client()->get("/api/v1/venue-ca");
    EXPECT_EQ(ca.status, 200);
    EXPECT_EQ(ca.body, contents(VenueTls::caCertificateFile(venue.tls)));
    QTemporaryDir home;
    const QProcessEnvironment environment = headlessEnvironment(home);
    const QString defaultPath = home.filePath(QStringLiteral("data/Marquee/marquee/device.json"));

    // Another venue's fingerprint: refused, one line, nothing stored, the code still unused.
    const HeadlessRun wrong = pairWithTheApp({QStringLiteral("--server"), front.url(), QStringLiteral("--ca-fingerprint"), fingerprint(venue.otherTls)}, code,
                                   environment);
    EXPECT_EQ(wrong.exitCode, 1) << wrong.err.toStdString();
    EXPECT_TRUE(wrong.err.contains(QStringLiteral("ca_mismatch"))) << wrong.err.toStdString();
    EXPECT_EQ(wrong.err.trimmed().count(QLatin1Char('\n')), 0) << wrong.err.toStdString();
    EXPECT_FALSE(QFile::exists(defaultPath));
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM pairing_codes WHERE device_name = 'till-pair' AND used_at IS NULL")).toInt(), 1);

    // The right one: paired, one line, the file in the data directory, 0600.
    const HeadlessRun paired = pairWithTheApp({QStringLiteral("--server"), front.url(), QStringLiteral("--ca-fingerprint"), fingerprint(venue.tls)}, code,
                                    environment);
    ASSERT_EQ(paired.exitCode, 0) << paired.err.toStdString();
    EXPECT_TRUE(paired.out.startsWith(QStringLiteral("paired as till 'till-pair'"))) << paired.out.toStdString();
    EXPECT_EQ(paired.out.trimmed().count(QLatin1Char('\n')), 0) << paired.out.toStdString();
    EXPECT_EQ(mode(defaultPath), 0600);
    QString error;
    const auto stored = DeviceCredentials::load(defaultPath, &error);
    ASSERT_TRUE(stored) << error.toStdString();
    EXPECT_FALSE(paired.out.contains(stored->token)) << "the token was printed";
    EXPECT_EQ(stored->role, QStringLiteral("till"));

    // Twice: the code is used (409 at the server), non-zero, and the stored file stays as it was.
    const QByteArray before = contents(defaultPath);
    const HeadlessRun twice = pairWithTheApp({QStringLiteral("--server"), front.url(), QStringLiteral("--ca-fingerprint"), fingerprint(venue.tls)}, code,
                                   environment);
    EXPECT_EQ(twice.exitCode, 1);
    EXPECT_TRUE(twice.err.contains(QStringLiteral("code_used"))) << twice.err.toStdString();
    EXPECT_EQ(contents(defaultPath), before);

    // No code on standard input, no server: usage errors.
    EXPECT_EQ(pairWithTheApp({QStringLiteral("--server"), front.url()}, QString(), environment).exitCode, 2);
    EXPECT_EQ(pairWithTheApp({}, code, environment).exitCode, 2);

    // The app starts from the file: a till (cashier role) on the stored server, trusting the stored venue CA alone.
    auto config = parseArguments({QStringLiteral("marquee"), QStringLiteral("--credentials"), defaultPath}, &error);
    ASSERT_TRUE(config) << error.toStdString();
    EXPECT_EQ(startupNeed(*config), StartupNeed::Credentials);
    applyCredentials(*config, *stored);
    EXPECT_EQ(config->role, QStringLiteral("cashier"));
    EXPECT_EQ(config->server, QUrl(front.url()));
    const auto policy = transportPolicy(*config, &error);
    ASSERT_TRUE(policy && policy->tls) << error.toStdString();
    sync::ApiClient client{config->server};
    client.setTransport(*policy);
    client.setToken(config->token);
    const sync::ApiResult cities = client.requestBlocking(QStringLiteral("GET"), QStringLiteral("/api/v1/cities"));
    EXPECT_TRUE(cities.ok()) << cities.describe().toStdString();
    // Another venue's server certificate is refused with the stored anchor.
    Venue elsewhere;
    TlsFront impostor(elsewhere.tls, server.port());
    sync::ApiClient fooled{QUrl(impostor.url())};
    fooled.setTransport(*policy);
    const sync::ApiResult refused = fooled.requestBlocking(QStringLiteral("GET"), QStringLiteral("/healthz"));
    EXPECT_EQ(refused.kind, sync::ApiResult::Kind::NetworkError);
    EXPECT_TRUE(refused.tlsFailed) << refused.describe().toStdString();

    // Someone else can read the file: the app refuses it rather than go on.
    QFile::setPermissions(defaultPath, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadOther);
    EXPECT_FALSE(DeviceCredentials::load(defaultPath, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("readable or writable by others"))) << error.toStdString();
}

TEST(AppPairing, WrongExpiredAndLockedCodesAndAnUnreachableServerSayWhatToDo)
{
    Venue venue;
    test::TestServer server(test::TestServer::Options::withConfig([](ServerConfig &config) { config.pairingFailuresPerAddress = 3; }));
    const QString base = QStringLiteral("http://127.0.0.1:%1").arg(server.port());
    const auto noCa = server.client()->get("/api/v1/venue-ca");
    EXPECT_EQ(noCa.status, 404);
    EXPECT_EQ(noCa.json().value(QStringLiteral("error")).toString(), QStringLiteral("venue_ca_not_configured"));
    QTemporaryDir state;
    DevicePairing pairing(optionsIn(state));

    // Not a code's shape: refused before anything is sent.
    ASSERT_TRUE(attempt(pairing, base, QStringLiteral("12-34"), {}));
    EXPECT_EQ(pairing.errorKind(), QStringLiteral("code_format"));
    // A fingerprint that is not one.
    ASSERT_TRUE(attempt(pairing, base, QStringLiteral("7K3M-Q9TZ"), QStringLiteral("AB:CD")));
    EXPECT_EQ(pairing.errorKind(), QStringLiteral("fingerprint_format"));
    // Plain http to another machine without --allow-insecure-http.
    ASSERT_TRUE(attempt(pairing, QStringLiteral("http://192.0.2.1:8080"), QStringLiteral("7K3M-Q9TZ"), {}));
    EXPECT_EQ(pairing.errorKind(), QStringLiteral("address"));
    // A fingerprint, but the server has no venue CA to serve.
    ASSERT_TRUE(attempt(pairing, base, QStringLiteral("7K3M-Q9TZ"), fingerprint(venue.tls)));
    EXPECT_EQ(pairing.errorKind(), QStringLiteral("no_venue_ca")) << pairing.errorString().toStdString();

    // Unknown (1), expired (2): each says so.
    ASSERT_TRUE(attempt(pairing, base, QStringLiteral("7K3M-Q9TZ"), {}));
    EXPECT_EQ(pairing.errorKind(), QStringLiteral("code_unknown")) << pairing.errorString().toStdString();
    const QString expired = newCode(server, QStringLiteral("lobby-late"));
    server.scalar(QStringLiteral("UPDATE pairing_codes SET expires_at = now() - interval '1 second' RETURNING 1"));
    ASSERT_TRUE(attempt(pairing, base, expired, {}));
    EXPECT_EQ(pairing.errorKind(), QStringLiteral("code_expired")) << pairing.errorString().toStdString();
    // The third wrong code locks pairing from this address: the screen says for how long; a good code waits too.
    ASSERT_TRUE(attempt(pairing, base, QStringLiteral("7K3M-Q9TX"), {}));
    EXPECT_EQ(pairing.errorKind(), QStringLiteral("locked")) << pairing.errorString().toStdString();
    EXPECT_GT(pairing.retryAfterSeconds(), 0);
    const QString good = newCode(server, QStringLiteral("lobby-good"));
    ASSERT_TRUE(attempt(pairing, base, good, {}));
    EXPECT_EQ(pairing.errorKind(), QStringLiteral("locked"));
    EXPECT_FALSE(QFile::exists(state.filePath(QStringLiteral("state/device.json"))));

    // Nobody listening.
    QTcpServer closed;
    closed.listen(QHostAddress::LocalHost, 0);
    const quint16 port = closed.serverPort();
    closed.close();
    ASSERT_TRUE(attempt(pairing, QStringLiteral("http://127.0.0.1:%1").arg(port), good, {}));
    EXPECT_EQ(pairing.errorKind(), QStringLiteral("unreachable")) << pairing.errorString().toStdString();

    // https without a fingerprint trusts the system's CAs, which do not know the venue's: not trusted, code not sent.
    TlsFront front(venue.tls, server.port());
    ASSERT_TRUE(attempt(pairing, front.url(), good, {}));
    EXPECT_EQ(pairing.errorKind(), QStringLiteral("untrusted")) << pairing.errorString().toStdString();
}

TEST(AppPairing, TheAppsFirstRunScreenHandsTheStoredCredentialsOnWhenItIsLeft)
{
    // What runApp does for a kiosk without a token or credentials: the screen runs in the app's own event loop, and
    // "Start the kiosk" ends it with the saved credentials, which the kiosk's screens then start from.
    test::TestServer server;
    const QString code = newCode(server, QStringLiteral("lobby-first"));
    QTemporaryDir state;
    AppConfig config;
    config.server = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.port()));
    config.credentialsPath = state.filePath(QStringLiteral("device.json"));
    int step = 0;
    QTimer driver;
    driver.setInterval(50);
    QObject::connect(&driver, &QTimer::timeout, [&] {
        QQuickWindow *window = nullptr;
        for (QWindow *candidate : QGuiApplication::topLevelWindows())
            if (auto *quick = qobject_cast<QQuickWindow *>(candidate); quick && test::itemNamed(quick, QStringLiteral("pairingCode")))
                window = quick;
        if (!window)
            return;
        // The button's own signal (the screen test above clicks with the mouse): this test is about the app's loop.
        const auto click = [window](const QString &name) {
            QQuickItem *button = test::itemNamed(window, name);
            const bool enabled = button && button->isEnabled();
            if (enabled)
                QMetaObject::invokeMethod(button, "clicked");
            return enabled;
        };
        if (step == 0) {
            window->grabWindow(); // laid out
            test::itemNamed(window, QStringLiteral("pairingCode"))->setProperty("text", code);
            if (click(QStringLiteral("pairButton")))
                step = 1;
        } else if (step == 1 && test::itemNamed(window, QStringLiteral("continueButton")) && click(QStringLiteral("continueButton"))) {
            step = 2;
        }
    });
    driver.start();
    QTimer::singleShot(60000, [] { QCoreApplication::exit(3); }); // a screen that never finished
    const std::optional<DeviceCredentials> paired = runPairingScreen(config);
    driver.stop();
    ASSERT_TRUE(paired) << "step " << step;
    EXPECT_EQ(step, 2);
    EXPECT_EQ(paired->deviceName, QStringLiteral("lobby-first"));
    EXPECT_TRUE(paired->caPem.isEmpty()); // loopback http: nothing to pin
    EXPECT_EQ(mode(config.credentialsPath), 0600);
    AppConfig started = config;
    applyCredentials(started, *paired);
    EXPECT_EQ(started.role, QStringLiteral("kiosk"));
    EXPECT_EQ(started.token, paired->token);
    EXPECT_EQ(server.client(started.token)->get("/api/v1/cities").status, 200);
}
