/* SPDX-License-Identifier: MIT */
/* cw_copy_safe's recovery points on x86-64 Linux (src/safe.c explains the
 * design). The struct safe_frame and struct safe_tls offsets used here are
 * checked by _Static_assert in src/safe_frame.h.
 *
 * cwi_safe_enter is the fast path where the build has safe kernels (GCC):
 * no frame, no store. The others are the general path (any flags, nested
 * copies, the slow path's chunks) and the fast path with a frame in the
 * thread's block, where there are no safe kernels or the copy must not
 * take the temporal kernel's backward walk (src/safe_internal.h). */
#if defined(__CET__)
/* shadow-stack/IBT builds take the sigsetjmp path (src/safe.c) and need
 * none of this; cet.h marks the object compatible so the library keeps its
 * CET marking */
#include <cet.h>
#endif

#if defined(__x86_64__) && defined(__linux__) && !defined(__CET__)

#define FRAME_RSP 0
#define FRAME_PREV 8
#define FRAME_DST 16
#define FRAME_SRC 24
#define FRAME_N 32
#define FRAME_SIZE 56
#define IMPL_COPY 16 /* offsetof(struct cwi_impl, copy) */

    .macro save_callee_saved base
    mov %rbx, \base(%rsp)
    mov %rbp, \base+8(%rsp)
    mov %r12, \base+16(%rsp)
    mov %r13, \base+24(%rsp)
    mov %r14, \base+32(%rsp)
    mov %r15, \base+40(%rsp)
    .endm
    .macro restore_callee_saved base
    mov \base(%rsp), %rbx
    mov \base+8(%rsp), %rbp
    mov \base+16(%rsp), %r12
    mov \base+24(%rsp), %r13
    mov \base+32(%rsp), %r14
    mov \base+40(%rsp), %r15
    .endm

    .text

/* int cwi_safe_call(struct safe_frame *f, safe_op op, unsigned hints):
 * arms f (the general path: any flags, nested copies, the slow path's
 * chunks), calls op(f->dst, f->src, f->n, hints) (op NULL: the active
 * implementation's temporal copy), disarms; returns 0. After a fault the
 * handler resumes at cwi_safe_landing with f->rsp as the stack pointer, and
 * the registers saved here are put back; returns 1. Arguments come from
 * the frame so that the C caller keeps nothing live in registers across the
 * call. Stack: 6 saves + 8 keep %rsp 16-byte aligned at the call. */
    .p2align 4
    .globl cwi_safe_call
    .hidden cwi_safe_call
    .type cwi_safe_call, @function
cwi_safe_call:
    .cfi_startproc
    sub $56, %rsp
    .cfi_adjust_cfa_offset 56
    save_callee_saved 8
    .cfi_rel_offset %rbx, 8
    .cfi_rel_offset %rbp, 16
    .cfi_rel_offset %r12, 24
    .cfi_rel_offset %r13, 32
    .cfi_rel_offset %r14, 40
    .cfi_rel_offset %r15, 48
    mov %rsp, FRAME_RSP(%rdi)
    mov %rdi, %rbx
    mov %rsi, %r12
    mov %edx, %r13d
    mov cwi_safe_tls@gottpoff(%rip), %r14
    mov %rdi, %fs:(%r14)            /* armed */
    test %r12, %r12
    jnz 1f
    mov cwi_active_row(%rip), %rax
    mov IMPL_COPY(%rax), %r12
1:
    mov FRAME_DST(%rbx), %rdi
    mov FRAME_SRC(%rbx), %rsi
    mov FRAME_N(%rbx), %rdx
    mov %r13d, %ecx
    call *%r12
    mov FRAME_PREV(%rbx), %rax
    mov %rax, %fs:(%r14)            /* disarmed: the outer copy, if any */
    xor %eax, %eax
.Lsafe_call_out:
    restore_callee_saved 8
    add $56, %rsp
    .cfi_adjust_cfa_offset -56
    ret
    .cfi_endproc
    .size cwi_safe_call, .-cwi_safe_call

    .p2align 4
    .globl cwi_safe_landing
    .hidden cwi_safe_landing
    .type cwi_safe_landing, @function
cwi_safe_landing:
    mov $1, %eax
    jmp .Lsafe_call_out
    .size cwi_safe_landing, .-cwi_safe_landing

/* size_t cwi_safe_fast(dst, src, n, tag, kernel): cw_copy_safe's common
 * case (flags 0 or CW_ZERO_TAIL, below the streaming threshold, not nested
 * in another armed copy) where the build has no safe kernels, and in every
 * build for the copies that must not take the temporal kernel's backward
 * walk, built to add as few stores as possible to a store-bound copy: src
 * and n go to the frame in one 16-byte store, then one 16-byte store to the
 * thread's block publishes dst and the armed word (this frame's %rsp | tag)
 * at once, so a signal handler never sees half of it; kernel(dst, src, n)
 * (the active row's temporal or forward copy) is called directly. The
 * callee-saved registers are saved (a kernel may change them before it
 * faults) and read back only after a fault. The handler completes the
 * frame (dst, prev, flags). Stack: the frame, the six
 * registers, the return address: %rsp 16-byte aligned at the call.
 * cwi_safe_fast_landing (resumed with %rsp = the frame) returns
 * cwi_safe_recover(frame). */
#define FAST_STACK 104
    .p2align 4
    .globl cwi_safe_fast
    .hidden cwi_safe_fast
    .type cwi_safe_fast, @function
cwi_safe_fast:
    .cfi_startproc
    sub $FAST_STACK, %rsp
    .cfi_adjust_cfa_offset FAST_STACK
    save_callee_saved FRAME_SIZE
    movq %rsi, %xmm0
    movq %rdx, %xmm1
    punpcklqdq %xmm1, %xmm0
    movdqu %xmm0, FRAME_SRC(%rsp)   /* frame: src, n */
    or %rsp, %rcx
    movq %rcx, %xmm0
    movq %rdi, %xmm1
    punpcklqdq %xmm1, %xmm0
    mov cwi_safe_tls@gottpoff(%rip), %rax
    movdqu %xmm0, %fs:(%rax)        /* armed, with dst */
    call *%r8
    mov cwi_safe_tls@gottpoff(%rip), %r8
    movq $0, %fs:(%r8)              /* disarmed */
    xor %eax, %eax
.Lsafe_fast_out:
    add $FAST_STACK, %rsp
    .cfi_adjust_cfa_offset -FAST_STACK
    ret
    .cfi_endproc
    .size cwi_safe_fast, .-cwi_safe_fast

    .p2align 4
    .globl cwi_safe_fast_landing
    .hidden cwi_safe_fast_landing
    .type cwi_safe_fast_landing, @function
cwi_safe_fast_landing:
    restore_callee_saved FRAME_SIZE
    mov %rsp, %rdi
    call cwi_safe_recover
    jmp .Lsafe_fast_out
    .size cwi_safe_fast_landing, .-cwi_safe_fast_landing

/* size_t cwi_safe_enter(dst, src, n, zero_tail, kernel): the fast path
 * with safe kernels, reached by a tail jump from cw_copy_safe. Parks the
 * copy in registers no safe kernel touches (xmm15 = dst | src << 64,
 * xmm14 = n | (the caller's %rsp, pointing at its return address,
 * | zero_tail) << 64; zero_tail is 0 or 1: that %rsp is 8 mod 16) and jumps
 * into the kernel, which returns 0 to the caller. Vector registers are
 * free at a call, so nothing is saved. A fault inside the kernel is
 * recognised by its address (section cw_safe_text) and resumed, from these
 * registers, as a call of cwi_safe_regs_recover by the same caller. */
    .p2align 4
    .globl cwi_safe_enter
    .hidden cwi_safe_enter
    .type cwi_safe_enter, @function
cwi_safe_enter:
    mov %rsp, %rax
    or %rcx, %rax
    movq %rdx, %xmm14
    movq %rax, %xmm0
    punpcklqdq %xmm0, %xmm14
    movq %rdi, %xmm15
    movq %rsi, %xmm0
    punpcklqdq %xmm0, %xmm15
    jmp *%r8
    .size cwi_safe_enter, .-cwi_safe_enter

/* noreturn cwi_safe_resume(const uintptr_t regs[13]): for
 * cw_safe_handle_fault, which leaves the program's handler without
 * sigreturn: loads the interrupted context's callee-saved registers (rbx,
 * rbp, r12..r15 at regs[2..7]: no kernel that can fault there changed
 * them, or the landing puts back what the trampoline saved) and the
 * argument registers (rdi, rsi, rdx, rcx, r8 at regs[8..12]), then %rsp =
 * regs[0] and jumps to regs[1]. */
    .p2align 4
    .globl cwi_safe_resume
    .hidden cwi_safe_resume
    .type cwi_safe_resume, @function
cwi_safe_resume:
    mov 16(%rdi), %rbx
    mov 24(%rdi), %rbp
    mov 32(%rdi), %r12
    mov 40(%rdi), %r13
    mov 48(%rdi), %r14
    mov 56(%rdi), %r15
    mov 72(%rdi), %rsi
    mov 80(%rdi), %rdx
    mov 88(%rdi), %rcx
    mov 96(%rdi), %r8
    mov 8(%rdi), %r11
    mov (%rdi), %r10
    mov 64(%rdi), %rdi
    mov %r10, %rsp          /* after the last read of regs[]: a signal may */
    jmp *%r11               /* overwrite it as soon as it is below %rsp */
    .size cwi_safe_resume, .-cwi_safe_resume

#endif

    .section .note.GNU-stack, "", @progbits
