// SPDX-License-Identifier: AGPL-3.0-or-later
// marquee-admin: database administration. Each command prints its result (token, confirmation) as its last line.
#include "runtime/backup.h"
#include "runtime/serverconfig.h"
#include "runtime/venuetls.h"
#include "startup/demoseed.h"
#include "startup/marqueeserver.h"
#include "store/authrepository.h"
#include "store/backuprepository.h"
#include "store/embeddedpostgres.h"
#include "store/migrations.h"
#include "store/pairingrepository.h"
#include "store/reportrepository.h"
#include "store/staffrepository.h"
#include "store/ticketrepository.h"
#include "tickets/keyencryptionkey.h"
#include "core/pairingscan.h"

#include <QCoreApplication>
#include <QFile>
#include <QElapsedTimer>
#include <QTextStream>
#include <qrencode.h>

using namespace marquee;

namespace {

/**
 * @brief @p text as a QR code for a terminal, two module rows per line in half blocks, with the four-module quiet
 * zone. The blocks draw the light modules (as `qrencode -t UTF8` does), so on a dark terminal the code is dark on
 * light, as scanners expect. Empty if the text cannot be encoded.
 */
QString terminalQr(const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    QRcode *code = QRcode_encodeString8bit(bytes.constData(), 0, QR_ECLEVEL_M);
    if (!code)
        return {};
    constexpr int kQuiet = 4;
    const int width = code->width;
    const int size = width + 2 * kQuiet;
    auto light = [&](int x, int y) {
        x -= kQuiet;
        y -= kQuiet;
        return x < 0 || y < 0 || x >= width || y >= width || !(code->data[y * width + x] & 1);
    };
    QString out;
    for (int y = 0; y < size; y += 2) {
        for (int x = 0; x < size; ++x) {
            const bool top = light(x, y);
            const bool bottom = y + 1 < size ? light(x, y + 1) : false;
            out += top && bottom ? QChar(0x2588) : top ? QChar(0x2580) : bottom ? QChar(0x2584) : QChar(u' ');
        }
        out += QLatin1Char('\n');
    }
    QRcode_free(code);
    return out;
}
QString usage()
{
    return QStringLiteral(
        "Usage: marquee-admin [--database-url URL | --data-dir DIR] [--signing-kek-file FILE] COMMAND\n"
        "Commands:\n"
        "  migrate                                         apply pending schema migrations\n"
        "  seed-demo                                       load demo cities, cinemas, movies, a week of shows, a stadium\n"
        "  seed-stadium --seats N                          a stand-alone stadium show of N seats (multiple of 1000); prints its id last\n"
        "  device add --name NAME --role kiosk|till [--venue ID] [--pairing [--venue-ca-file FILE]]\n"
        "                                                  enrol a device of that venue (default: the only venue, if the\n"
        "                                                  database has one); prints its bearer token last, or with\n"
        "                                                  --pairing a one-time code (15 minutes) the device trades for\n"
        "                                                  its token (POST /api/v1/devices/pair), and with\n"
        "                                                  --venue-ca-file the venue CA's SHA-256 fingerprint the device\n"
        "                                                  checks the server against (the code stays the last line)\n"
        "  device venue --name NAME --venue ID             move a device to a venue: its ticket keys and the tickets its\n"
        "                                                  door admits follow, on every running server at once\n"
        "  staff add --name NAME --role cashier|manager|admin   add staff; password from standard input\n"
        "  device revoke --name NAME                       revoke a device's token, on every running server at once\n"
        "  staff disable --name NAME                       disable a staff member and end their sessions everywhere\n"
        "  status                                          schema version and database URL\n"
        "  report occupancy --show ID                      a show's occupancy report (GET /api/v1/reports/occupancy) computed\n"
        "                                                  from scratch in PostgreSQL; the time it took on standard error\n"
        "  keys rotate --venue ID                          new ticket signing key for a venue; the old one verifies until not_after\n"
        "  keys list                                       every key that still verifies\n"
        "  audit-protection [--server-role ROLE]           whether ROLE (default: the connecting role) could silence the\n"
        "                                                  audit log, and the SQL a superuser runs to prevent it\n"
        "  tls init --dir DIR --name NAME... --ip IP... [--force]\n"
        "                                                  a venue CA and a server certificate for those DNS names and\n"
        "                                                  addresses in DIR: ca.crt (for every device's --ca-file), ca.key,\n"
        "                                                  server.crt, server.key and server.pem (HAProxy's bundle); refuses\n"
        "                                                  to replace files without --force\n"
        "  tls rotate --dir DIR [--name NAME...] [--ip IP...]  a new server key and certificate from the same CA (default:\n"
        "                                                  the current names); restart marquee-proxy afterwards\n"
        "  tls show --dir DIR                              the CA's SHA-256 fingerprint (what devices pin), names, expiry\n"
        "  backup --to DIR                                 pg_dump of the database (one snapshot), a copy of the key-encryption\n"
        "                                                  key and manifest.json with checksums, in the new or empty DIR (0700)\n"
        "  restore --from DIR [--into-database NAME] [--kek-to FILE]\n"
        "                                                  restore a backup into an empty database (NAME: on the same server,\n"
        "                                                  created when missing), checksums first; the key-encryption key goes\n"
        "                                                  where the server reads it (or FILE) once every signing key opens\n"
        "tls commands need no database. --name and --ip may be repeated, or given comma-separated.\n"
        "Without --database-url (or MARQUEE_DATABASE_URL) the embedded cluster in the data directory is used.\n"
        "keys rotate seals the new key with the server's key-encryption key: DIR/signing-kek unless --signing-kek-file\n"
        "(or MARQUEE_SIGNING_KEK_FILE) names it.\n");
}

QString optionValue(QStringList &args, const QString &name);

/** @brief Every value of a repeatable option (--name a --name b, or --name a,b). */
QStringList optionValues(QStringList &args, const QString &name, bool *missingValue)
{
    QStringList values;
    for (qsizetype i = args.indexOf(name); i >= 0; i = args.indexOf(name)) {
        if (i + 1 >= args.size()) {
            *missingValue = true;
            args.remove(i);
            break;
        }
        values += args[i + 1].split(QLatin1Char(','), Qt::SkipEmptyParts);
        args.remove(i, 2);
    }
    return values;
}

/** @brief marquee-admin tls init|rotate|show: files only, no database. */
int tlsCommand(QStringList args, QTextStream &out, QTextStream &err)
{
    const QString action = args.isEmpty() ? QString() : args.takeFirst();
    const QString dir = optionValue(args, QStringLiteral("--dir"));
    bool missingValue = false;
    const QStringList names = optionValues(args, QStringLiteral("--name"), &missingValue);
    const QStringList ips = optionValues(args, QStringLiteral("--ip"), &missingValue);
    const bool force = args.removeAll(QStringLiteral("--force")) > 0;
    if (dir.isEmpty() || missingValue || !args.isEmpty() || (action != QLatin1String("init") && action != QLatin1String("rotate") && action != QLatin1String("show"))
        || (action != QLatin1String("init") && force) || (action == QLatin1String("show") && !(names.isEmpty() && ips.isEmpty()))) {
        err << "marquee-admin: usage: tls init --dir DIR --name NAME... --ip IP... [--force] | tls rotate --dir DIR [--name NAME...] [--ip IP...]"
               " | tls show --dir DIR\n";
        return 2;
    }
    QString error;
    std::optional<VenueTls::Subject> subject = VenueTls::Subject{};
    if (action == QLatin1String("init") || !names.isEmpty() || !ips.isEmpty())
        subject = VenueTls::subject(names, ips, &error);
    const bool done = subject
        && (action == QLatin1String("init") ? VenueTls::init(dir, *subject, force, &error)
                                            : action == QLatin1String("rotate") ? VenueTls::rotate(dir, *subject, &error) : true);
    const auto summary = done ? VenueTls::show(dir, &error) : std::nullopt;
    if (!summary) {
        err << "marquee-admin: tls " << action << ": " << error << "\n";
        return 1;
    }
    QStringList alternatives = summary->server.dnsNames;
    for (const QHostAddress &address : summary->server.addresses)
        alternatives << address.toString();
    if (action != QLatin1String("show"))
        out << "wrote " << VenueTls::caCertificateFile(dir) << " (give it to every device as --ca-file) and " << VenueTls::bundleFile(dir)
            << " (HAProxy's crt)\n";
    out << "CA " << summary->caSubject << ", valid until " << summary->caNotAfter.toString(Qt::ISODate) << "\n"
        << "server certificate for " << alternatives.join(QStringLiteral(", ")) << ", valid until "
        << summary->serverNotAfter.toString(Qt::ISODate) << "\n"
        << "CA SHA-256 fingerprint " << summary->caFingerprint << Qt::endl;
    return 0;
}

/** @brief marquee-admin backup|restore: before any migration (a backup is of the schema as it is). */
int backupCommand(const QString &command, QStringList args, store::DatabaseConfig database, const QString &kekPath, QTextStream &out,
                  QTextStream &err)
{
    const QString directory = optionValue(args, command == QLatin1String("backup") ? QStringLiteral("--to") : QStringLiteral("--from"));
    const QString intoDatabase = optionValue(args, QStringLiteral("--into-database"));
    const QString kekTo = optionValue(args, QStringLiteral("--kek-to"));
    if (directory.isEmpty() || !args.isEmpty() || (command == QLatin1String("backup") && !(intoDatabase.isEmpty() && kekTo.isEmpty()))) {
        err << "marquee-admin: usage: backup --to DIR | restore --from DIR [--into-database NAME] [--kek-to FILE]\n";
        return 2;
    }
    QString error;
    if (command == QLatin1String("backup")) {
        const auto created = Backup::create(database, kekPath, directory, &error);
        if (!created) {
            err << "marquee-admin: backup: " << error << "\n";
            return 1;
        }
        out << "backed up " << database.database << " (schema " << created->schemaVersion << ", " << created->dumpBytes
            << " bytes) and its key-encryption key to " << directory << "\nkeep " << directory << "/signing-kek apart from the dump" << Qt::endl;
        return 0;
    }
    if (!intoDatabase.isEmpty()) {
        store::DatabaseConfig maintenance = database;
        maintenance.database = QStringLiteral("postgres");
        store::Database server(maintenance);
        const bool made = store::BackupRepository::ensureDatabase(server, intoDatabase, &error);
        server.closeThreadConnection();
        if (!made) {
            err << "marquee-admin: restore: " << error << "\n";
            return 1;
        }
        database.database = intoDatabase;
    }
    const QString kekDestination = kekTo.isEmpty() ? kekPath : kekTo;
    const auto restored = Backup::restore(database, directory, kekDestination, &error);
    if (!restored) {
        err << "marquee-admin: restore: " << error << "\n";
        return 1;
    }
    out << "restored " << directory << " into " << database.database << " (schema " << restored->schemaVersion << "); "
        << restored->signingKeys << " signing keys open with the key-encryption key "
        << (restored->keyEncryptionKeyWritten ? "written to " : "already at ") << kekDestination << Qt::endl;
    return 0;
}

QString optionValue(QStringList &args, const QString &name)
{
    const qsizetype i = args.indexOf(name);
    if (i < 0 || i + 1 >= args.size())
        return {};
    const QString value = args[i + 1];
    args.remove(i, 2);
    return value;
}
} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QTextStream out(stdout);
    QTextStream err(stderr);
    QStringList args = app.arguments().mid(1);
    QString url = optionValue(args, QStringLiteral("--database-url"));
    if (url.isEmpty())
        url = qEnvironmentVariable("MARQUEE_DATABASE_URL");
    QString dataDir = optionValue(args, QStringLiteral("--data-dir"));
    QString kekFile = optionValue(args, QStringLiteral("--signing-kek-file"));
    if (kekFile.isEmpty())
        kekFile = qEnvironmentVariable("MARQUEE_SIGNING_KEK_FILE");
    if (dataDir.isEmpty())
        dataDir = qEnvironmentVariable("MARQUEE_DATA_DIR", ServerConfig::defaultDataDirectory());
    if (args.isEmpty() || args.contains(QStringLiteral("--help"))) {
        out << usage();
        return args.isEmpty() ? 2 : 0;
    }
    if (args.first() == QLatin1String("tls"))
        return tlsCommand(args.mid(1), out, err);

    std::unique_ptr<store::EmbeddedPostgres> embedded;
    QString error;
    const auto config = resolveDatabase(url, dataDir, embedded, false, &error);
    if (!config) {
        err << "marquee-admin: " << error << "\n";
        return 1;
    }
    store::Database database(*config);
    store::Migrations migrations(database);
    const QString command = args.takeFirst();
    if (command == QLatin1String("backup") || command == QLatin1String("restore"))
        return backupCommand(command, args, *config, kekFile.isEmpty() ? KeyEncryptionKey::defaultPath(dataDir) : kekFile, out, err);

    // Every command but status needs a current schema; migrating first is what an operator expects.
    if (command != QLatin1String("status") && !migrations.migrate()) {
        err << "marquee-admin: " << migrations.errorString() << "\n";
        return 1;
    }
    int rc = 0;
    if (command == QLatin1String("migrate")) {
        out << "schema at version " << migrations.currentVersion() << Qt::endl;
    } else if (command == QLatin1String("status")) {
        out << "database " << config->toUrl() << "\nschema version " << migrations.currentVersion() << " (binary "
            << store::Migrations::latestVersion() << ")" << Qt::endl;
    } else if (command == QLatin1String("seed-demo")) {
        const auto result = seedDemo(database, &error);
        if (!result) {
            err << "marquee-admin: " << error << "\n";
            rc = 1;
        } else if (result->alreadySeeded) {
            out << "demo data already present; nothing changed" << Qt::endl;
        } else {
            out << "seeded " << result->cities << " city, " << result->venues << " venues, " << result->screens << " screens, "
                << result->movies << " movies, " << result->shows << " shows; stadium show " << result->stadiumShowId << Qt::endl;
        }
    } else if (command == QLatin1String("seed-stadium")) {
        bool ok = false;
        const int seats = optionValue(args, QStringLiteral("--seats")).toInt(&ok);
        const auto showId = ok ? seedStadiumShow(database, seats, &error) : std::nullopt;
        if (!ok)
            error = QStringLiteral("seed-stadium needs --seats N");
        if (!showId) {
            err << "marquee-admin: " << error << "\n";
            rc = 1;
        } else {
            out << "stadium show " << *showId << Qt::endl;
        }
    } else if ((command == QLatin1String("device") && args.value(0) == QLatin1String("revoke"))
               || (command == QLatin1String("staff") && args.value(0) == QLatin1String("disable"))) {
        // Takes effect on the next request on every running instance: the change notifies channel marquee_auth.
        args.removeFirst();
        const QString name = optionValue(args, QStringLiteral("--name"));
        if (name.isEmpty() || !args.isEmpty()) {
            err << "marquee-admin: " << command << (command == QLatin1String("device") ? " revoke" : " disable") << " needs --name NAME\n";
            rc = 2;
        } else {
            store::AuthRepository auth(database);
            const store::Principal operatorActor = store::Principal::system(QStringLiteral("marquee-admin"));
            const bool done = command == QLatin1String("device") ? auth.revokeDevice(name, operatorActor, &error)
                                                                 : auth.disableStaff(name, operatorActor, &error);
            if (!done) {
                err << "marquee-admin: " << error << "\n";
                rc = 1;
            } else {
                out << (command == QLatin1String("device") ? "device '" : "staff '") << name
                    << (command == QLatin1String("device") ? "' revoked" : "' disabled and signed out") << Qt::endl;
            }
        }
    } else if (command == QLatin1String("device") && args.value(0) == QLatin1String("venue")) {
        args.removeFirst();
        const QString name = optionValue(args, QStringLiteral("--name"));
        bool ok = false;
        const qint64 venueId = optionValue(args, QStringLiteral("--venue")).toLongLong(&ok);
        if (name.isEmpty() || !ok || venueId <= 0 || !args.isEmpty()) {
            err << "marquee-admin: device venue needs --name NAME and --venue ID (a positive integer)\n";
            rc = 2;
        } else {
            store::AuthRepository auth(database);
            if (!auth.setDeviceVenue(name, venueId, store::Principal::system(QStringLiteral("marquee-admin")), &error)) {
                err << "marquee-admin: " << error << "\n";
                rc = 1;
            } else {
                out << "device '" << name << "' is of venue " << venueId << Qt::endl;
            }
        }
    } else if ((command == QLatin1String("device") || command == QLatin1String("staff")) && !args.isEmpty()
               && args.takeFirst() == QLatin1String("add")) {
        const QString name = optionValue(args, QStringLiteral("--name"));
        const auto role = roleFromString(optionValue(args, QStringLiteral("--role")));
        const QString venueText = command == QLatin1String("device") ? optionValue(args, QStringLiteral("--venue")) : QString();
        bool venueOk = true;
        const qint64 venueId = venueText.isEmpty() ? 0 : venueText.toLongLong(&venueOk);
        const bool pairing = command == QLatin1String("device") && args.removeAll(QStringLiteral("--pairing")) > 0;
        const bool caGiven = args.contains(QStringLiteral("--venue-ca-file"));
        const QString caFile = pairing ? optionValue(args, QStringLiteral("--venue-ca-file")) : QString();
        // Read before the code is made: a wrong path must not leave a code behind that nobody was shown.
        QString caFingerprint;
        QString caProblem = QStringLiteral("needs a file");
        if (!caFile.isEmpty()) {
            QFile ca(caFile);
            if (!ca.open(QIODevice::ReadOnly))
                caProblem = QStringLiteral("cannot be read: ") + ca.errorString();
            else if ((caFingerprint = VenueTls::fingerprint(ca.readAll())).isEmpty())
                caProblem = QStringLiteral("holds no PEM certificate (tls init writes the venue CA as ca.crt)");
        }
        if (pairing && caGiven && caFingerprint.isEmpty()) {
            err << "marquee-admin: --venue-ca-file " << caFile << " " << caProblem << "\n";
            rc = 2;
        } else if (pairing && venueId > 0) {
            // A pairing code does not carry a venue yet: the paired device takes the only venue, or none.
            err << "marquee-admin: device add --pairing takes no --venue yet; pair it, then run device venue --name NAME --venue ID\n";
            rc = 2;
        } else if (pairing && name.size() > 0 && role && args.isEmpty() && venueOk) {
            const auto code = store::PairingRepository(database).create(name, *role, store::PairingRepository::kValidSeconds, &error);
            if (!code) {
                err << "marquee-admin: " << error << "\n";
                rc = 1;
            } else {
                if (!caFingerprint.isEmpty())
                    out << "venue CA SHA-256 fingerprint (the device checks the server against it): " << caFingerprint << "\n";
                const QString shown = store::PairingRepository::display(code->code);
                // The QR carries code and fingerprint: a device's scanner fills in both on the pairing screen.
                out << "the code" << (caFingerprint.isEmpty() ? "" : " and the fingerprint") << " as a QR for the device's scanner:\n"
                    << terminalQr(pairingScanText(shown, caFingerprint));
                out << "device '" << name << "' (" << toString(*role) << ") pairs with this code until "
                    << code->expiresAt.toUTC().toString(Qt::ISODate) << ", once:\n"
                    << shown << Qt::endl;
            }
        } else if (name.isEmpty() || !role || !args.isEmpty() || !venueOk || venueId < 0) {
            err << "marquee-admin: " << command << " add needs --name NAME and a valid --role"
                << (command == QLatin1String("device") ? " (and --venue ID, if given, a positive integer)" : "") << "\n";
            rc = 2;
        } else {
            store::AuthRepository auth(database);
            if (command == QLatin1String("device")) {
                const auto token = auth.addDevice(name, *role, &error, venueId);
                if (!token) {
                    err << "marquee-admin: " << error << "\n";
                    rc = 1;
                } else {
                    out << "device '" << name << "' enrolled as " << toString(*role) << "; its token:\n" << *token << Qt::endl;
                }
            } else {
                QTextStream in(stdin);
                const QString password = in.readLine().trimmed();
                if (!auth.addStaff(name, *role, password, &error)) {
                    err << "marquee-admin: " << error << "\n";
                    rc = 1;
                } else {
                    out << "staff '" << name << "' added as " << toString(*role) << Qt::endl;
                }
            }
        }
    } else if (command == QLatin1String("report") && !args.isEmpty() && args.takeFirst() == QLatin1String("occupancy")) {
        // The server sends the same bytes from memory (OccupancyReports); this is the reference to compare with.
        bool ok = false;
        const qint64 showId = optionValue(args, QStringLiteral("--show")).toLongLong(&ok);
        if (!ok || showId <= 0 || !args.isEmpty()) {
            err << "marquee-admin: report occupancy needs --show ID (a positive integer)\n";
            rc = 2;
        } else {
            store::ReportRepository reports(database);
            QElapsedTimer timer;
            timer.start();
            const auto document = reports.occupancy(showId);
            const double ms = timer.nsecsElapsed() / 1e6;
            if (!document) {
                err << "marquee-admin: cannot compute the report\n";
                rc = 1;
            } else if (document->json.isEmpty()) {
                err << "marquee-admin: no show " << showId << "\n";
                rc = 1;
            } else {
                out << document->json << Qt::endl;
                err << "computed from scratch in " << QString::number(ms, 'f', 1) << " ms" << Qt::endl;
            }
        }
    } else if (command == QLatin1String("keys") && !args.isEmpty()) {
        const QString action = args.takeFirst();
        store::TicketRepository tickets(database);
        bool venueOk = false;
        const qint64 venue = optionValue(args, QStringLiteral("--venue")).toLongLong(&venueOk);
        if (action == QLatin1String("rotate") && venueOk && venue > 0 && args.isEmpty()) {
            // The new key is sealed with the servers' key-encryption key; the admin never creates one of its own.
            const auto keyEncryptionKey = KeyEncryptionKey::load(kekFile.isEmpty() ? KeyEncryptionKey::defaultPath(dataDir) : kekFile, &error);
            if (keyEncryptionKey)
                tickets.setKeyEncryptionKey(*keyEncryptionKey);
            const auto keyId = keyEncryptionKey && tickets.prepareSigningKeys(&error) ? tickets.rotateKey(venue, &error) : std::nullopt;
            if (!keyId) {
                err << "marquee-admin: " << error << "\n";
                rc = 1;
            } else {
                out << "venue " << venue << " now signs tickets with key " << *keyId << Qt::endl;
            }
        } else if (action == QLatin1String("list") && args.isEmpty()) {
            const auto keys = tickets.publicKeys();
            if (!keys) {
                err << "marquee-admin: cannot read the keys\n";
                rc = 1;
            } else {
                for (const store::PublicSigningKey &key : *keys)
                    out << "key " << key.keyId << " venue " << key.venueId << (key.retired ? " retired" : " signing") << " not_after "
                        << key.notAfter.toUTC().toString(Qt::ISODate) << " " << key.publicKey.toBase64() << Qt::endl;
                out << keys->size() << " keys" << Qt::endl;
            }
        } else {
            err << "marquee-admin: keys rotate needs --venue ID (a positive integer); keys list takes no options\n";
            rc = 2;
        }
    } else if (command == QLatin1String("audit-protection")) {
        const QString serverRole = optionValue(args, QStringLiteral("--server-role"));
        store::StaffRepository staff(database);
        const auto protection = staff.auditProtection();
        if (!protection || !args.isEmpty()) {
            err << "marquee-admin: " << (protection ? QStringLiteral("audit-protection takes only --server-role ROLE") : QStringLiteral("cannot read the audit log's owner"))
                << "\n";
            rc = protection ? 2 : 1;
        } else {
            out << "audit_log owner: " << protection->owner << "\nconnected as: " << protection->role << "\n";
            if (serverRole.isEmpty() || serverRole == protection->role)
                out << (protection->inPlace ? QStringLiteral("protected: this role may only add and read entries")
                                            : QStringLiteral("NOT protected: ") + protection->reason)
                    << "\n";
            out << "\nTo keep the server's role from changing the log or dropping its triggers:\n"
                << store::AuditProtection::setupSql(serverRole.isEmpty() ? protection->role : serverRole) << Qt::flush;
        }
    } else {
        err << "marquee-admin: unknown command\n" << usage();
        rc = 2;
    }
    database.closeThreadConnection();
    return rc;
}
