// SPDX-License-Identifier: AGPL-3.0-or-later
#include "orders/paymentprovider.h"
#include "logging.h"

#include <QDeadlineTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QTcpSocket>
#include <QUuid>


namespace marquee::payments {

QString toString(IntentStatus status)
{
    switch (status) {
    case IntentStatus::RequiresPayment:
        return QStringLiteral("requires_payment");
    case IntentStatus::Succeeded:
        return QStringLiteral("succeeded");
    case IntentStatus::Failed:
        return QStringLiteral("failed");
    case IntentStatus::Canceled:
        return QStringLiteral("canceled");
    case IntentStatus::Refunded:
        return QStringLiteral("refunded");
    }
    return {};
}

std::optional<IntentStatus> intentStatusFromString(const QString &text)
{
    for (IntentStatus s : {IntentStatus::RequiresPayment, IntentStatus::Succeeded, IntentStatus::Failed,
                           IntentStatus::Canceled, IntentStatus::Refunded}) {
        if (toString(s) == text)
            return s;
    }
    return std::nullopt;
}

std::optional<HttpReply> blockingHttp(const QUrl &url, const QByteArray &method, const QByteArray &body, int timeoutMs,
                                      QString *error)
{
    // QTcpSocket's waitFor*() block without spinning an event loop, so a worker thread never re-enters its own
    // HTTP server (and its database connection) while it waits for the provider.
    QDeadlineTimer deadline(timeoutMs);
    QTcpSocket socket;
    socket.connectToHost(url.host(), quint16(url.port(80)));
    if (!socket.waitForConnected(int(deadline.remainingTime()))) {
        *error = QStringLiteral("cannot connect to %1: %2").arg(url.toString(), socket.errorString());
        return std::nullopt;
    }
    QByteArray path = url.path(QUrl::FullyEncoded).toUtf8();
    if (path.isEmpty())
        path = "/";
    QByteArray request = method + ' ' + path + " HTTP/1.1\r\nHost: " + url.host().toUtf8() + "\r\nConnection: close\r\n";
    if (!body.isEmpty() || method == "POST")
        request += "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n";
    request += "\r\n" + body;
    socket.write(request);
    while (socket.bytesToWrite() > 0) {
        if (!socket.waitForBytesWritten(int(deadline.remainingTime()))) {
            *error = QStringLiteral("cannot send to %1: %2").arg(url.toString(), socket.errorString());
            return std::nullopt;
        }
    }
    QByteArray buffer;
    qsizetype headerEnd = -1;
    qint64 contentLength = -1;
    int status = 0;
    for (;;) {
        if (headerEnd < 0) {
            headerEnd = buffer.indexOf("\r\n\r\n");
            if (headerEnd >= 0) {
                const QList<QByteArray> lines = buffer.left(headerEnd).split('\n');
                const QList<QByteArray> statusLine = lines.value(0).trimmed().split(' ');
                status = statusLine.value(1).toInt();
                for (const QByteArray &line : lines.mid(1)) {
                    const qsizetype colon = line.indexOf(':');
                    if (colon > 0 && line.left(colon).trimmed().toLower() == "content-length")
                        contentLength = line.mid(colon + 1).trimmed().toLongLong();
                }
            }
        }
        if (headerEnd >= 0 && contentLength >= 0 && buffer.size() >= headerEnd + 4 + contentLength)
            return HttpReply{status, buffer.mid(headerEnd + 4, contentLength)};
        if (socket.state() != QAbstractSocket::ConnectedState && socket.bytesAvailable() == 0) {
            if (headerEnd >= 0 && contentLength < 0)
                return HttpReply{status, buffer.mid(headerEnd + 4)};
            break;
        }
        if (deadline.hasExpired()) {
            *error = QStringLiteral("no answer from %1 within %2 ms").arg(url.toString()).arg(timeoutMs);
            return std::nullopt;
        }
        if (socket.bytesAvailable() == 0 && !socket.waitForReadyRead(int(qMax<qint64>(1, deadline.remainingTime())))) {
            if (socket.state() == QAbstractSocket::ConnectedState && deadline.hasExpired()) {
                *error = QStringLiteral("no answer from %1 within %2 ms").arg(url.toString()).arg(timeoutMs);
                return std::nullopt;
            }
        }
        buffer += socket.readAll();
    }
    *error = QStringLiteral("incomplete answer from %1").arg(url.toString());
    return std::nullopt;
}

PaySimProvider::PaySimProvider(QUrl baseUrl, int timeoutMs)
    : m_baseUrl(std::move(baseUrl))
    , m_timeoutMs(timeoutMs)
{
}

namespace {
std::optional<Intent> intentFromReply(const std::optional<HttpReply> &reply, QString *error)
{
    if (!reply)
        return std::nullopt;
    const QJsonObject object = QJsonDocument::fromJson(reply->body).object();
    const auto status = intentStatusFromString(object.value(QStringLiteral("status")).toString());
    if (reply->status / 100 != 2 || !status || object.value(QStringLiteral("payment_intent_id")).toString().isEmpty()) {
        *error = QStringLiteral("provider answered %1: %2").arg(reply->status).arg(QString::fromUtf8(reply->body.left(300)));
        return std::nullopt;
    }
    Intent intent;
    intent.id = object.value(QStringLiteral("payment_intent_id")).toString();
    intent.status = *status;
    intent.amountMinor = object.value(QStringLiteral("amount_minor")).toInteger();
    intent.currency = object.value(QStringLiteral("currency")).toString();
    intent.declineReason = object.value(QStringLiteral("decline_reason")).toString();
    intent.refundedMinor = object.value(QStringLiteral("refunded_minor")).toInteger();
    return intent;
}

bool safeId(const QString &id)
{
    if (id.isEmpty() || id.size() > 100)
        return false;
    for (QChar c : id) {
        if (!(c.isLetterOrNumber() && c.unicode() < 128) && c != u'_' && c != u'-')
            return false;
    }
    return true;
}
} // namespace

std::optional<Intent> PaySimProvider::createIntent(const QString &orderId, const Money &amount, QString *error)
{
    QUrl url = m_baseUrl;
    url.setPath(QStringLiteral("/v1/intents"));
    const QByteArray body = QJsonDocument(QJsonObject{{QStringLiteral("amount_minor"), amount.minor},
                                                      {QStringLiteral("currency"), amount.currency},
                                                      {QStringLiteral("order_id"), orderId}})
                                .toJson(QJsonDocument::Compact);
    return intentFromReply(blockingHttp(url, "POST", body, m_timeoutMs, error), error);
}

std::optional<Intent> PaySimProvider::queryIntent(const QString &intentId, QString *error)
{
    if (!safeId(intentId)) {
        *error = QStringLiteral("malformed intent id");
        return std::nullopt;
    }
    QUrl url = m_baseUrl;
    url.setPath(QStringLiteral("/v1/intents/") + intentId);
    return intentFromReply(blockingHttp(url, "GET", {}, m_timeoutMs, error), error);
}

std::optional<Intent> PaySimProvider::cancelIntent(const QString &intentId, QString *error)
{
    if (!safeId(intentId)) {
        *error = QStringLiteral("malformed intent id");
        return std::nullopt;
    }
    QUrl url = m_baseUrl;
    url.setPath(QStringLiteral("/v1/intents/") + intentId + QStringLiteral("/cancel"));
    return intentFromReply(blockingHttp(url, "POST", "{}", m_timeoutMs, error), error);
}

std::optional<RefundResult> PaySimProvider::refund(const QString &intentId, qint64 amountMinor, QString *error)
{
    if (!safeId(intentId)) {
        *error = QStringLiteral("malformed intent id");
        return std::nullopt;
    }
    QUrl url = m_baseUrl;
    url.setPath(QStringLiteral("/v1/intents/") + intentId + QStringLiteral("/refund"));
    const auto reply = blockingHttp(url, "POST",
                                    QJsonDocument(QJsonObject{{QStringLiteral("amount_minor"), amountMinor}}).toJson(QJsonDocument::Compact),
                                    m_timeoutMs, error);
    if (!reply)
        return std::nullopt;
    const QJsonObject object = QJsonDocument::fromJson(reply->body).object();
    if (reply->status / 100 != 2 || object.value(QStringLiteral("refund_id")).toString().isEmpty()) {
        *error = QStringLiteral("refund refused (%1): %2").arg(reply->status).arg(QString::fromUtf8(reply->body.left(300)));
        return std::nullopt;
    }
    return RefundResult{object.value(QStringLiteral("refund_id")).toString(),
                        object.value(QStringLiteral("status")).toString() == QLatin1String("succeeded")};
}

std::optional<Intent> CashProvider::createIntent(const QString &, const Money &amount, QString *)
{
    return Intent{QStringLiteral("cash_") + QUuid::createUuid().toString(QUuid::Id128), IntentStatus::Succeeded,
                  amount.minor, amount.currency, {}};
}

std::optional<Intent> CashProvider::queryIntent(const QString &intentId, QString *error)
{
    if (!intentId.startsWith(QLatin1String("cash_"))) {
        *error = QStringLiteral("not a cash intent");
        return std::nullopt;
    }
    return Intent{intentId, IntentStatus::Succeeded, 0, {}, {}};
}

std::optional<Intent> CashProvider::cancelIntent(const QString &intentId, QString *error)
{
    // Until the order is confirmed the sale is not complete: cancelling hands the cash back across the counter.
    auto intent = queryIntent(intentId, error);
    if (intent)
        intent->status = IntentStatus::Canceled;
    return intent;
}

std::optional<RefundResult> CashProvider::refund(const QString &intentId, qint64, QString *error)
{
    if (!intentId.startsWith(QLatin1String("cash_"))) {
        *error = QStringLiteral("not a cash intent");
        return std::nullopt;
    }
    // Deterministic per intent, so a repeated refund is recognisably the same one.
    return RefundResult{QStringLiteral("cashrefund_") + intentId.mid(5), true};
}

} // namespace marquee::payments
