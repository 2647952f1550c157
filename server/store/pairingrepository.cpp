// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/pairingrepository.h"

#include "core/tokenhash.h"
#include "store/staffrepository.h"

#include <QCryptographicHash>
#include <QRandomGenerator>
#include <QSqlError>
#include <QSqlQuery>

namespace marquee::store {

namespace {
// Crockford's base32: no I, L, O, U, so a code read aloud or off a screen is not mistaken.
constexpr char kAlphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

QString codeHash(const QString &canonical)
{
    return QString::fromLatin1(QCryptographicHash::hash(QByteArrayLiteral("marquee.pairing.v1|") + canonical.toLatin1(), QCryptographicHash::Sha256).toHex());
}
} // namespace

PairingRepository::PairingRepository(const Database &database)
    : m_database(database)
{
}

QString PairingRepository::normalize(const QString &code)
{
    QString canonical;
    for (QChar c : code) {
        c = c.toUpper();
        if (c == QLatin1Char('-') || c == QLatin1Char(' '))
            continue;
        if (c == QLatin1Char('O'))
            c = QLatin1Char('0');
        else if (c == QLatin1Char('I') || c == QLatin1Char('L'))
            c = QLatin1Char('1');
        if (c.unicode() > 127 || !std::strchr(kAlphabet, char(c.unicode())) || c.unicode() == 0)
            return {};
        canonical += c;
    }
    return canonical.size() == kCodeLength ? canonical : QString();
}

QString PairingRepository::display(const QString &code)
{
    return code.left(kCodeLength / 2) + QLatin1Char('-') + code.mid(kCodeLength / 2);
}

std::optional<PairingCode> PairingRepository::create(const QString &name, Role role, int validSeconds, QString *error)
{
    if (!isDeviceRole(role) || name.isEmpty() || name.size() > 100) {
        *error = QStringLiteral("a pairing code is for a device (role kiosk or till) with a name of 1 to 100 characters");
        return std::nullopt;
    }
    QString code;
    for (int i = 0; i < kCodeLength; ++i)
        code += QLatin1Char(kAlphabet[QRandomGenerator::system()->bounded(32)]);
    QSqlDatabase db = m_database.connection();
    Transaction transaction(db);
    QSqlQuery exists(db);
    prepareQuery(exists, QStringLiteral("SELECT 1 FROM devices WHERE name = ?"));
    exists.addBindValue(name);
    QSqlQuery replace(db);
    prepareQuery(replace, QStringLiteral("DELETE FROM pairing_codes WHERE device_name = ? AND used_at IS NULL"));
    replace.addBindValue(name);
    QSqlQuery insert(db);
    prepareQuery(insert, QStringLiteral("INSERT INTO pairing_codes (code_hash, device_name, role, expires_at) "
                                        "VALUES (?, ?, ?, now() + make_interval(secs => ?)) RETURNING expires_at"));
    insert.addBindValue(codeHash(code));
    insert.addBindValue(name);
    insert.addBindValue(toString(role));
    insert.addBindValue(validSeconds);
    if (!transaction.isActive() || !execQuery(exists, "find device")) {
        *error = QStringLiteral("cannot read the devices: %1").arg(exists.lastError().text());
        return std::nullopt;
    }
    if (exists.next()) {
        *error = QStringLiteral("a device named '%1' already exists").arg(name);
        return std::nullopt;
    }
    if (!execQuery(replace, "replace pairing code") || !execQuery(insert, "add pairing code") || !insert.next()) {
        *error = QStringLiteral("cannot store the pairing code: %1").arg(insert.lastError().text() + replace.lastError().text());
        return std::nullopt;
    }
    const QDateTime expiresAt = insert.value(0).toDateTime();
    if (!transaction.commit()) {
        *error = QStringLiteral("cannot store the pairing code");
        return std::nullopt;
    }
    return PairingCode{code, expiresAt};
}

std::optional<Pairing> PairingRepository::redeem(const QString &code, const QString &address)
{
    const QString canonical = normalize(code);
    const QString token = newBearerToken();
    QSqlDatabase db = m_database.connection();
    Transaction transaction(db);
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral("SELECT decision, device_id, device_name, device_role FROM mq_redeem_pairing_code(?, ?)"));
    query.addBindValue(canonical.isEmpty() ? QString() : codeHash(canonical));
    query.addBindValue(QString::fromLatin1(tokenHash(token)));
    if (!transaction.isActive() || !execQuery(query, "redeem pairing code") || !query.next())
        return std::nullopt;
    static const QHash<QString, Pairing::Decision> decisions = {{QStringLiteral("paired"), Pairing::Decision::Paired},
                                                                {QStringLiteral("unknown_code"), Pairing::Decision::UnknownCode},
                                                                {QStringLiteral("code_used"), Pairing::Decision::CodeUsed},
                                                                {QStringLiteral("code_expired"), Pairing::Decision::CodeExpired},
                                                                {QStringLiteral("name_taken"), Pairing::Decision::NameTaken}};
    const QString decision = query.value(0).toString();
    Pairing pairing;
    pairing.decision = decisions.value(decision, Pairing::Decision::UnknownCode);
    pairing.deviceId = query.value(1).toLongLong();
    pairing.name = query.value(2).toString();
    pairing.role = query.value(3).toString();
    query.finish();
    const bool paired = pairing.decision == Pairing::Decision::Paired;
    if (paired)
        pairing.token = token;
    const AuditEntry entry{paired ? QStringLiteral("device.paired") : QStringLiteral("device.pair_refused"),
                           pairing.name.isEmpty() ? QString() : QStringLiteral("device:") + pairing.name, QString(),
                           QJsonObject{{QStringLiteral("result"), decision}, {QStringLiteral("address"), address}}};
    if (!StaffRepository::appendAudit(db, Principal::system(QStringLiteral("pairing")), entry) || !transaction.commit())
        return std::nullopt;
    return pairing;
}

} // namespace marquee::store
