// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QString>
#include <optional>

namespace marquee {

/**
 * @brief What the QR that `marquee-admin device add --pairing` prints carries: `MQPAIR1/<code>` or, with the venue
 * CA, `MQPAIR1/<code>/<CA SHA-256 fingerprint>`. A kiosk's or till's scanner types it into the pairing screen's code
 * field (a scanner is a keyboard to the app), which then takes code and fingerprint from it.
 */
struct PairingScan {
    QString code;        ///< as printed, e.g. 7K3M-Q9TZ
    QString fingerprint; ///< as printed (colon-separated hex), empty when the code was printed without the CA
};

/** @brief The text of the pairing QR for @p code and, if not empty, the venue CA's @p fingerprint. */
QString pairingScanText(const QString &code, const QString &fingerprint);
/** @brief @p text read as a pairing QR; std::nullopt when it is not one (a typed code, for instance). */
std::optional<PairingScan> parsePairingScan(const QString &text);

} // namespace marquee
