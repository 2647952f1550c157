// SPDX-License-Identifier: AGPL-3.0-or-later
#include "paysim.h"

#include "core/isotime.h"
#include "core/jsonbody.h"
#include "core/tokenhash.h"

#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QThread>
#include <optional>
#include <QTimer>
#include <QUuid>
#include <cstdio>

namespace marquee::paysim {

namespace {

/** @brief The body's amount_minor: a non-negative integer in minor units (core's integer rule), else nothing. */
std::optional<qint64> amountMinor(const QJsonObject &body)
{
    const Result<qint64> amount = requiredInteger(body, QStringLiteral("amount_minor"));
    if (isError(amount) || std::get<qint64>(amount) < 0)
        return std::nullopt;
    return std::get<qint64>(amount);
}

QByteArray errorBody(const QString &code, const QString &message)
{
    return QJsonDocument(QJsonObject{{QStringLiteral("error"), code}, {QStringLiteral("message"), message}}).toJson(QJsonDocument::Compact);
}
QString newId(const char *prefix)
{
    return QString::fromLatin1(prefix) + QUuid::createUuid().toString(QUuid::Id128).left(24);
}
} // namespace

PaySim::PaySim(PaySimConfig config, QObject *parent)
    : QAbstractHttpServer(parent)
    , m_config(std::move(config))
{
}

QJsonObject PaySim::intentJson(const Intent &intent) const
{
    QJsonObject object{{QStringLiteral("payment_intent_id"), intent.id},
                       {QStringLiteral("status"), intent.status},
                       {QStringLiteral("amount_minor"), intent.amountMinor},
                       {QStringLiteral("currency"), intent.currency},
                       {QStringLiteral("order_id"), intent.orderId}};
    if (!intent.declineReason.isEmpty())
        object.insert(QStringLiteral("decline_reason"), intent.declineReason);
    if (!intent.refundId.isEmpty()) {
        object.insert(QStringLiteral("refund_id"), intent.refundId);
        object.insert(QStringLiteral("refunded_minor"), intent.refundedMinor);
    }
    return object;
}

PaySim::Reply PaySim::route(const QHttpServerRequest &request)
{
    static const QRegularExpression intentPath(QStringLiteral("^/v1/intents/([A-Za-z0-9_-]{1,100})(/(pay|refund|cancel))?$"));
    const QString path = request.url().path();
    const bool isPost = request.method() == QHttpServerRequest::Method::Post;
    QJsonObject body;
    if (isPost) {
        QJsonParseError parseError;
        const QJsonDocument document = QJsonDocument::fromJson(request.body(), &parseError);
        if (!request.body().isEmpty() && (parseError.error != QJsonParseError::NoError || !document.isObject()))
            return {400, errorBody(QStringLiteral("malformed_json"), QStringLiteral("The body must be a JSON object."))};
        body = document.object();
    }

    if (path == QLatin1String("/v1/intents")) {
        if (!isPost)
            return {405, errorBody(QStringLiteral("method_not_allowed"), QStringLiteral("Use POST."))};
        const std::optional<qint64> amount = amountMinor(body);
        const QString currency = body.value(QStringLiteral("currency")).toString();
        const QString orderId = body.value(QStringLiteral("order_id")).toString();
        if (!amount)
            return {400, errorBody(QStringLiteral("invalid_amount"), QStringLiteral("amount_minor must be a non-negative integer."))};
        if (!QRegularExpression(QStringLiteral("^[A-Z]{3}$")).match(currency).hasMatch())
            return {400, errorBody(QStringLiteral("invalid_currency"), QStringLiteral("currency must be an ISO 4217 code."))};
        if (orderId.isEmpty() || orderId.size() > 100)
            return {400, errorBody(QStringLiteral("invalid_order_id"), QStringLiteral("order_id is required."))};
        Intent intent{newId("pi_"), orderId, *amount, currency, QStringLiteral("requires_payment"), {}, {}, 0,
                      QDateTime::currentDateTimeUtc()};
        m_intents.insert(intent.id, intent);
        return {201, QJsonDocument(intentJson(intent)).toJson(QJsonDocument::Compact)};
    }

    const auto match = intentPath.match(path);
    if (!match.hasMatch())
        return {404, errorBody(QStringLiteral("not_found"), QStringLiteral("There is no such resource."))};
    auto it = m_intents.find(match.captured(1));
    if (it == m_intents.end())
        return {404, errorBody(QStringLiteral("intent_not_found"), QStringLiteral("There is no intent with this id."))};
    Intent &intent = *it;
    const QString action = match.captured(3);

    if (action.isEmpty()) {
        if (request.method() != QHttpServerRequest::Method::Get)
            return {405, errorBody(QStringLiteral("method_not_allowed"), QStringLiteral("Use GET."))};
        return {200, QJsonDocument(intentJson(intent)).toJson(QJsonDocument::Compact)};
    }
    if (!isPost)
        return {405, errorBody(QStringLiteral("method_not_allowed"), QStringLiteral("Use POST."))};

    if (action == QLatin1String("pay")) {
        const QString token = body.value(QStringLiteral("card_token")).toString();
        static const QStringList known = {QStringLiteral("tok_visa"), QStringLiteral("tok_declined"), QStringLiteral("tok_slow"),
                                          QStringLiteral("tok_lost"), QStringLiteral("tok_duplicate"), QStringLiteral("tok_late")};
        if (!known.contains(token))
            return {400, errorBody(QStringLiteral("invalid_card_token"), QStringLiteral("Unknown card token."))};
        if (intent.status != QLatin1String("requires_payment")) {
            QJsonObject error{{QStringLiteral("error"), QStringLiteral("intent_not_payable")},
                              {QStringLiteral("message"), QStringLiteral("This intent is %1.").arg(intent.status)},
                              {QStringLiteral("status"), intent.status}};
            return {409, QJsonDocument(error).toJson(QJsonDocument::Compact)};
        }
        if (token == QLatin1String("tok_declined")) {
            intent.status = QStringLiteral("failed");
            intent.declineReason = QStringLiteral("card_declined");
            emitEvent(intent, QStringLiteral("payment_intent.failed"), 0, 1);
        } else {
            intent.status = QStringLiteral("succeeded");
            if (token == QLatin1String("tok_duplicate"))
                emitEvent(intent, QStringLiteral("payment_intent.succeeded"), 0, 2);
            else if (token == QLatin1String("tok_late"))
                emitEvent(intent, QStringLiteral("payment_intent.succeeded"), m_config.lateMs, 1);
            else if (token != QLatin1String("tok_lost"))
                emitEvent(intent, QStringLiteral("payment_intent.succeeded"), 0, 1);
            if (token == QLatin1String("tok_slow"))
                QThread::msleep(m_config.slowMs); // captured already; only the answer is slow
        }
        QJsonObject reply{{QStringLiteral("payment_intent_id"), intent.id}, {QStringLiteral("status"), intent.status}};
        if (!intent.declineReason.isEmpty())
            reply.insert(QStringLiteral("decline_reason"), intent.declineReason);
        return {200, QJsonDocument(reply).toJson(QJsonDocument::Compact)};
    }

    if (action == QLatin1String("refund")) {
        if (intent.status == QLatin1String("refunded")) // idempotent: the one refund this intent has
            return {200, QJsonDocument(QJsonObject{{QStringLiteral("refund_id"), intent.refundId},
                                                   {QStringLiteral("status"), QStringLiteral("succeeded")},
                                                   {QStringLiteral("amount_minor"), intent.refundedMinor}})
                             .toJson(QJsonDocument::Compact)};
        if (intent.status != QLatin1String("succeeded"))
            return {409, errorBody(QStringLiteral("not_refundable"), QStringLiteral("Only a paid intent can be refunded."))};
        const std::optional<qint64> amount = amountMinor(body);
        if (!amount || *amount > intent.amountMinor)
            return {400, errorBody(QStringLiteral("invalid_amount"), QStringLiteral("amount_minor must be an integer from 0 to the captured amount."))};
        intent.status = QStringLiteral("refunded");
        intent.refundId = newId("re_");
        intent.refundedMinor = *amount;
        emitEvent(intent, QStringLiteral("charge.refunded"), 0, 1);
        return {200, QJsonDocument(QJsonObject{{QStringLiteral("refund_id"), intent.refundId},
                                               {QStringLiteral("status"), QStringLiteral("succeeded")},
                                               {QStringLiteral("amount_minor"), intent.refundedMinor}})
                         .toJson(QJsonDocument::Compact)};
    }

    // cancel: an unpaid intent can no longer be paid; anything else is reported as it is.
    if (intent.status == QLatin1String("requires_payment"))
        intent.status = QStringLiteral("canceled");
    return {200, QJsonDocument(intentJson(intent)).toJson(QJsonDocument::Compact)};
}

void PaySim::emitEvent(const Intent &intent, const QString &type, int delayMs, int copies)
{
    const qint64 amount = type == QLatin1String("charge.refunded") ? intent.refundedMinor : intent.amountMinor;
    const QByteArray body = QJsonDocument(QJsonObject{{QStringLiteral("event_id"), newId("evt_")},
                                                      {QStringLiteral("type"), type},
                                                      {QStringLiteral("payment_intent_id"), intent.id},
                                                      {QStringLiteral("order_id"), intent.orderId},
                                                      {QStringLiteral("amount_minor"), amount},
                                                      {QStringLiteral("currency"), intent.currency},
                                                      {QStringLiteral("created_at"), toIsoUtc(QDateTime::currentDateTimeUtc())}})
                                .toJson(QJsonDocument::Compact);
    if (!m_config.webhookUrl.isValid() || m_config.webhookUrl.isEmpty())
        return;
    for (int i = 0; i < copies; ++i)
        QTimer::singleShot(delayMs, this, [this, body] { deliver(body, 0); });
}

void PaySim::deliver(QByteArray body, int attempt)
{
    QNetworkRequest request(m_config.webhookUrl);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("X-Signature", "sha256=" + hmacSha256Hex(m_config.secret, body));
    request.setTransferTimeout(10000);
    QNetworkReply *reply = m_network.post(request, body);
    connect(reply, &QNetworkReply::finished, this, [this, reply, body, attempt] {
        reply->deleteLater();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status / 100 == 2)
            return;
        const qint64 delay = qMin<qint64>(qint64(m_config.retryBaseMs) << qMin(attempt, 20), m_config.retryMaxMs);
        std::fprintf(stderr, "paysim: webhook attempt %d answered %d, retrying in %lld ms\n", attempt + 1, status,
                     static_cast<long long>(delay));
        QTimer::singleShot(int(delay), this, [this, body, attempt] { deliver(body, attempt + 1); });
    });
}

bool PaySim::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    const Reply reply = route(request);
    QHttpServerResponder responder = makeResponder(request, socket);
    responder.write(reply.body, "application/json", static_cast<QHttpServerResponder::StatusCode>(reply.status));
    return true;
}

void PaySim::missingHandler(const QHttpServerRequest &request, QTcpSocket *socket)
{
    makeResponder(request, socket).write(QHttpServerResponder::StatusCode::NotFound);
}

} // namespace marquee::paysim
