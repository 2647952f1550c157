// SPDX-License-Identifier: AGPL-3.0-or-later
#include "keyseal.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <memory>

namespace marquee::KeySeal {

namespace {
struct CipherCtxDeleter {
    void operator()(EVP_CIPHER_CTX *ctx) const { EVP_CIPHER_CTX_free(ctx); }
};
using CipherCtxPtr = std::unique_ptr<EVP_CIPHER_CTX, CipherCtxDeleter>;

unsigned char *bytes(QByteArray &array)
{
    return reinterpret_cast<unsigned char *>(array.data());
}
const unsigned char *bytes(const QByteArray &array)
{
    return reinterpret_cast<const unsigned char *>(array.constData());
}
} // namespace

QByteArray seal(const QByteArray &keyEncryptionKey, const QByteArray &plaintext, const QByteArray &associatedData)
{
    if (keyEncryptionKey.size() != kKeyBytes)
        return {};
    QByteArray nonce(kNonceBytes, Qt::Uninitialized);
    if (RAND_bytes(bytes(nonce), kNonceBytes) != 1)
        return {};
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    QByteArray ciphertext(plaintext.size(), Qt::Uninitialized);
    QByteArray tag(kTagBytes, Qt::Uninitialized);
    int length = 0;
    if (!ctx || EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, bytes(keyEncryptionKey), bytes(nonce)) != 1
        || (!associatedData.isEmpty()
            && EVP_EncryptUpdate(ctx.get(), nullptr, &length, bytes(associatedData), int(associatedData.size())) != 1)
        || EVP_EncryptUpdate(ctx.get(), bytes(ciphertext), &length, bytes(plaintext), int(plaintext.size())) != 1
        || length != plaintext.size() || EVP_EncryptFinal_ex(ctx.get(), nullptr, &length) != 1
        || EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTagBytes, tag.data()) != 1)
        return {};
    return QByteArray(1, kVersion) + nonce + ciphertext + tag;
}

std::optional<QByteArray> open(const QByteArray &keyEncryptionKey, const QByteArray &sealed, const QByteArray &associatedData)
{
    if (keyEncryptionKey.size() != kKeyBytes || sealed.size() < sealedSize(0) || sealed.at(0) != kVersion)
        return std::nullopt;
    const QByteArray nonce = sealed.mid(1, kNonceBytes);
    const QByteArray ciphertext = sealed.mid(1 + kNonceBytes, sealed.size() - sealedSize(0));
    QByteArray tag = sealed.right(kTagBytes);
    QByteArray plaintext(ciphertext.size(), Qt::Uninitialized);
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    int length = 0;
    if (!ctx || EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, bytes(keyEncryptionKey), bytes(nonce)) != 1
        || (!associatedData.isEmpty()
            && EVP_DecryptUpdate(ctx.get(), nullptr, &length, bytes(associatedData), int(associatedData.size())) != 1)
        || EVP_DecryptUpdate(ctx.get(), bytes(plaintext), &length, bytes(ciphertext), int(ciphertext.size())) != 1
        || EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTagBytes, tag.data()) != 1
        || EVP_DecryptFinal_ex(ctx.get(), nullptr, &length) != 1)
        return std::nullopt; // wrong key, wrong record, or tampered bytes: the tag does not verify
    return plaintext;
}

} // namespace marquee::KeySeal
