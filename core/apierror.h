// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace marquee {

/**
 * @brief An error as it travels on the wire: HTTP status, a stable machine code and a human sentence.
 *
 * The body is always `{"error": code, "message": message}` plus optional extra fields
 * (for example `held_seats` on a seat conflict).
 */
struct ApiError {
    int httpStatus = 500;
    QString code;
    QString message;
    QJsonObject extra; ///< Extra fields merged into the body.

    QJsonObject toJson() const;
    QByteArray toBody() const;
    /** @brief Parse an error body; std::nullopt-like empty code when the body is not an error. */
    static ApiError fromBody(int httpStatus, const QByteArray &body);

    static ApiError badRequest(const QString &code, const QString &message) { return {400, code, message, {}}; }
    static ApiError malformedJson(const QString &detail);
    static ApiError unauthorized(const QString &message);
    static ApiError forbidden(const QString &message);
    static ApiError notFound(const QString &code, const QString &message) { return {404, code, message, {}}; }
    static ApiError methodNotAllowed();
    static ApiError conflict(const QString &code, const QString &message) { return {409, code, message, {}}; }
    static ApiError payloadTooLarge(qint64 limit);
    /** @brief 400 `invalid_text`: NUL, a control character or a lone surrogate where text was expected (@p where). */
    static ApiError invalidText(const QString &where);
    /** @brief 415 `unsupported_media_type`: a body that is not declared `Content-Type: application/json`. */
    static ApiError unsupportedMediaType();
    static ApiError unprocessable(const QString &code, const QString &message) { return {422, code, message, {}}; }
    static ApiError tooManyRequests(int retryAfterSeconds);
    static ApiError internal(const QString &message = QString());
    static ApiError unavailable(const QString &message);
};

} // namespace marquee
